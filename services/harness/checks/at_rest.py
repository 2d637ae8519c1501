"""Everything the isolation stack keeps, dumped and scanned for personal values.

Redis (every key and value, and the append-only file: every write since start, so data
written and then deleted counts too), every row of every SQL table and, for SQLite, the
database files as bytes (free pages keep deleted rows), and the logs of every process.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
import sqlalchemy as sa

from services.harness.checks.pii_scan import PersonalDataScanner, SourceScan
from services.harness.checks.stack import CheckStack


def redis_dump(client: Any) -> bytes:
    """Every key and value of a (private) Redis, as one byte string."""
    out = bytearray()
    for key in client.scan_iter(count=1000):
        out += key + b"\n"
        kind = client.type(key)
        if kind == b"string":
            out += (client.get(key) or b"") + b"\n"
        elif kind == b"hash":
            for name, value in client.hgetall(key).items():
                out += name + b"=" + value + b"\n"
        elif kind == b"zset":
            for member, score in client.zrange(key, 0, -1, withscores=True):
                out += member + b" " + str(score).encode() + b"\n"
        elif kind == b"set":
            out += b"\n".join(client.smembers(key)) + b"\n"
        elif kind == b"list":
            out += b"\n".join(client.lrange(key, 0, -1)) + b"\n"
        elif kind == b"stream":
            for entry_id, fields in client.xrange(key):
                out += entry_id + b" " + repr(fields).encode() + b"\n"
    return bytes(out)


def sql_dump(database_url: str) -> bytes:
    """Every row of every table, as text."""
    engine = sa.create_engine(database_url)
    out: list[str] = []
    try:
        metadata = sa.MetaData()
        metadata.reflect(engine)
        with engine.connect() as connection:
            for table in metadata.sorted_tables:
                out.append(f"## {table.name}")
                for row in connection.execute(sa.select(table)):
                    out.append(repr(tuple(row)))
    finally:
        engine.dispose()
    return "\n".join(out).encode("utf-8", "backslashreplace")


def scan_stack(
    stack: CheckStack, scanner: PersonalDataScanner, extra: Mapping[str, bytes] | None = None
) -> list[SourceScan]:
    """Scan every place the stack keeps data: Redis, its history, SQL, logs."""
    scans: list[SourceScan] = []
    client = stack.redis_client()
    try:
        scans.append(scanner.scan("redis_keys_and_values", redis_dump(client)))
    finally:
        client.close()
    for path in stack.redis_history_files():
        scans.append(scanner.scan(f"redis_history:{path.name}", path.read_bytes()))
    scans.append(scanner.scan("sql_rows", sql_dump(stack.database_url)))
    database_path = stack.database_path
    if database_path is not None:  # SQLite: the files too (free pages keep deleted rows)
        for path in sorted(database_path.parent.glob(database_path.name + "*")):
            scans.append(scanner.scan(f"sql_file:{path.name}", path.read_bytes()))
    for name, path in stack.log_paths().items():
        scans.append(scanner.scan(name, path.read_bytes()))
    for name, data in (extra or {}).items():
        scans.append(scanner.scan(name, data))
    return scans


def summarise_scans(scanner: PersonalDataScanner, scans: Sequence[SourceScan]) -> dict[str, Any]:
    found_values: set[int] = set()
    where: Counter[tuple[str, str, str]] = Counter()
    sources: dict[str, dict[str, int]] = {}
    for scan in scans:
        values = {s.value for s in scan.sightings}
        found_values |= values
        sources[scan.source] = {"bytes": scan.bytes_scanned, "values_found": len(values)}
        for sighting in scan.sightings:
            where[(scan.source, scanner.kind_of(sighting).value, sighting.form.value)] += 1
    return {
        "raw_pii_found": len(found_values),
        "where": [
            {"source": source, "kind": kind, "form": form, "values": count}
            for (source, kind, form), count in sorted(where.items())
        ],
        "sources": sources,
    }


def scanner_control(scanner: PersonalDataScanner, bodies: Sequence[bytes]) -> dict[str, int]:
    """The scanner must find every value in the requests that carried them, as sent and
    as ASCII-escaped JSON (what ``json.dumps`` would log)."""
    as_sent = scanner.scan("control", b"\n".join(bodies))
    escaped = scanner.scan(
        "control_escaped",
        "\n".join(json.dumps(orjson.loads(body)) for body in bodies).encode(),
    )
    return {
        "values": len(scanner.values),
        "found_as_sent": len({s.value for s in as_sent.sightings}),
        "found_ascii_escaped": len({s.value for s in escaped.sightings}),
    }
