"""Development and CI harness: the embedded stack every proof harness starts (demo,
``cachecoh dev up``, the checks; the fault rig next). Imports nothing dev-only, so it
runs in the production image too."""
