"""Source snapshots for refresh: an unload that reads a table without locks while changes go on.

The unload scans in key order and reads each row with cursor stability at a point that rises
linearly from the unload start to its end across the sorted keys that exist at any commit in the
window. Early keys therefore look like the start, late keys like the end, and a row moved by a
key-changing update can be read twice or not at all: exactly the inconsistency that refresh
while active (SPEC §5) has to repair from the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lakerep.registrations import Registration
from lakerep.workload.oracle import Oracle, replay_changes
from lakerep.workload.rows import Key
from lakerep.workload.values import RowCodec, Value, format_position, parse_position


@dataclass(frozen=True)
class Snapshot:
    table: str
    unload_start_position: str
    unload_end_position: str
    rows: list[dict[str, Value]]
    # The log position at which each row of `rows` was read.
    read_positions: list[str] = field(default_factory=list)
    registration: Registration | None = field(default=None, repr=False, compare=False)

    @property
    def snapshot_id(self) -> str:
        """Names one unload: OWNER.TABLE:start:end."""
        return f"{self.table}:{self.unload_start_position}:{self.unload_end_position}"

    def to_landing_rows(self) -> list[dict[str, str]]:
        if self.registration is None:
            raise ValueError(f"snapshot of {self.table} has no registration to encode its rows with")
        codec = RowCodec(self.registration.columns)
        names = self.registration.column_names
        return [
            {
                "snapshot_id": self.snapshot_id,
                "source_owner": self.registration.source_owner,
                "source_table": self.registration.source_table,
                "unload_start_position": self.unload_start_position,
                "unload_end_position": self.unload_end_position,
                "row_image": codec.encode(tuple(row[name] for name in names)),
            }
            for row in self.rows
        ]


def unload(oracle: Oracle, registration: Registration, start: str, end: str) -> Snapshot:
    table = registration.qualified_name
    start_number, end_number = parse_position(start), parse_position(end)
    if start_number > end_number:
        raise ValueError(f"unload of {table}: start position {start} is after end position {end}")
    rows = oracle.row_states(table, start)
    window = oracle.history(table, after=start, up_to=end)
    candidates = dict.fromkeys(rows)
    for change in window:
        if change.after_values is not None:
            candidates[change.key] = None
    keys: list[Key] = sorted(candidates)

    names = registration.column_names
    read_rows: list[dict[str, Value]] = []
    read_positions: list[str] = []
    applied = 0
    last = max(len(keys) - 1, 1)
    for index, key in enumerate(keys):
        point = format_position(start_number + (end_number - start_number) * index // last)
        pending = applied
        while pending < len(window) and str(window[pending].commit_position) <= point:
            pending += 1
        replay_changes(rows, window[applied:pending])
        applied = pending
        row = rows.get(key)
        if row is not None:
            read_rows.append(dict(zip(names, row, strict=True)))
            read_positions.append(point)
    return Snapshot(table, start, end, read_rows, read_positions, registration)
