"""Fault suite and event fuzzing: the harness that turns DESIGN.md's promises into figures.

``ground_truth`` (fact versions and the acknowledged watermark), ``group_offsets`` (when
the worker group acknowledged what), ``updates`` (the event stream, with duplicates and
reordering), ``load`` (reads and fills checked against the watermark), ``schedule`` (the
injected faults), ``rig`` (the infrastructure a run starts), ``report`` and ``suite`` (the
composition behind ``cachecoh check faults``); ``malformed_events`` and ``fuzz`` are
behind ``cachecoh check fuzz``.
"""
