"""Replay of landed log records in plain Python: a cross-check of the oracle through the JSON.

This reads only what landed (parses the images, joins the commit records) and shares nothing
with the generator but the value decoding, so it catches records that say something other than
what the generator did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lakerep.registrations import Registration
from lakerep.workload.values import RowCodec, Value, parse_position

Key = tuple[Value, ...]
TableState = dict[Key, dict[str, Value]]


class ReplayError(ValueError):
    """The landed records do not replay: a key conflict or an image that is not the current row."""


def replay_landing_records(
    records: Iterable[Mapping[str, str | None]],
    registrations: Mapping[str, Registration],
    up_to: str | None = None,
) -> dict[str, TableState]:
    """State of every registered table after the UOWs committed at or before up_to (None: all).

    UOWs are applied in commit position order, each UOW's changes in log position order, whatever
    order the records landed in. Rolled-back and unfinished UOWs and unregistered tables are ignored.
    """
    limit = None if up_to is None else parse_position(up_to)
    changes_by_uow: dict[str, list[Mapping[str, str | None]]] = {}
    commits: list[tuple[int, str]] = []
    for record in records:
        uow_id = str(record["uow_id"])
        record_type = record["record_type"]
        if record_type == "C":
            commits.append((parse_position(str(record["log_position"])), uow_id))
        elif record_type in ("I", "U", "D"):
            changes_by_uow.setdefault(uow_id, []).append(record)

    codecs = {name: RowCodec(registration.columns) for name, registration in registrations.items()}
    key_columns = {name: registration.key_columns for name, registration in registrations.items()}
    state: dict[str, TableState] = {name: {} for name in registrations}
    for commit_position, uow_id in sorted(commits):
        if limit is not None and commit_position > limit:
            break
        changes = sorted(changes_by_uow.get(uow_id, []), key=lambda record: str(record["log_position"]))
        for record in changes:
            table = f"{record['source_owner']}.{record['source_table']}"
            if table not in codecs:
                continue
            codec, keys, rows = codecs[table], key_columns[table], state[table]
            before = codec.decode(str(record["before_image"])) if record["before_image"] is not None else None
            after = codec.decode(str(record["after_image"])) if record["after_image"] is not None else None
            if before is not None:
                old_key = tuple(before[column] for column in keys)
                if rows.get(old_key) != before:
                    raise ReplayError(
                        f"{table} at {record['log_position']}: before image is not the current row"
                    )
                del rows[old_key]
            if after is not None:
                new_key = tuple(after[column] for column in keys)
                if new_key in rows:
                    raise ReplayError(f"{table} at {record['log_position']}: key {new_key} exists already")
                rows[new_key] = after
    return state
