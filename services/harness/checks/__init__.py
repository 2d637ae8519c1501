"""Checks that prove the privacy and capacity promises end to end (``cachecoh check``).

- ``personal_data``: realistic personal data to send (checksum-valid IDs and cards, valid
  phone numbers, e-mails, names) and the forms each value could be stored in;
- ``pii_scan``: a multi-pattern scan of bytes (Redis, SQL, logs) for those forms;
- ``upstream_ledger``: a recording pass-through in front of the engine (which tenant salt
  each upstream call carried, when it arrived, which completion id it produced);
- ``stack``: engine, ledger, gateway and a private Redis as child processes;
- ``isolation``: many tenants, overlapping questions, personal data, spoofing, admin
  probes; then every answer's provenance and a scan for raw personal data;
- ``load``: hit-heavy and miss-heavy mixes, latency, statuses, upstream calls per key
  against the token bucket, memory of every process.
"""
