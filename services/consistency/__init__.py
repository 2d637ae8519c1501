"""The consistency checker: a Polaris-style prober that runs beside the coherence worker.

For every event, once the worker group has committed past it, it probes the answers
tagged with the event's tags through the real lookup path and counts any answer built
from an older spec version (see docs/consistency.md).
"""
