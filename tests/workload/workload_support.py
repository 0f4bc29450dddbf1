"""Support for the workload tests: the shared runs, and facts read back from landed records alone.

A module of its own, not the conftest, so test modules can import it by a name no other test
folder is likely to use.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lakerep.registrations import Registration
from lakerep.workload import UNREGISTERED_TABLE, LandingBatch, LogRecord, RowCodec, Workload, WorkloadConfig
from lakerep.workload.config import LandingOrder

SEED = 20260101
BATCH_RECORDS = 500
BATCHES = 10  # 5,000 log records: enough for every feature the generator promises


@dataclass
class Run:
    workload: Workload
    batches: list[LandingBatch]

    @property
    def records(self) -> list[LogRecord]:
        return [record for batch in self.batches for record in batch.records]


def generate(landing_order: LandingOrder, finish: bool = False, seed: int = SEED) -> Run:
    workload = Workload(seed, config=WorkloadConfig(landing_order=landing_order))
    batches = [workload.next_batch(BATCH_RECORDS) for _ in range(BATCHES)]
    if finish:
        batches.append(workload.close_open_transactions())
    return Run(workload, batches)


@dataclass
class Uow:
    uow_id: str
    records: list[LogRecord] = field(default_factory=list)
    end: LogRecord | None = None

    @property
    def changes(self) -> list[LogRecord]:
        return [record for record in self.records if record["record_type"] in ("I", "U", "D")]

    @property
    def end_position(self) -> str | None:
        return None if self.end is None else self.end["log_position"]


def uows(records: Iterable[LogRecord]) -> dict[str, Uow]:
    """UOWs by id, records in log position order."""
    found: dict[str, Uow] = {}
    for record in sorted(records, key=lambda record: record["log_position"]):
        uow = found.setdefault(record["uow_id"], Uow(record["uow_id"]))
        uow.records.append(record)
        if record["record_type"] in ("C", "R"):
            uow.end = record
    return found


def table_of(record: LogRecord) -> str:
    return f"{record['source_owner']}.{record['source_table']}"


class Images:
    """Decodes the row images of registered tables and of the unregistered audit table."""

    def __init__(self, registrations: dict[str, Registration]) -> None:
        tables = {**registrations, UNREGISTERED_TABLE.qualified_name: UNREGISTERED_TABLE}
        self.codecs = {name: RowCodec(registration.columns) for name, registration in tables.items()}
        self.keys = {name: registration.key_columns for name, registration in tables.items()}

    def before(self, record: LogRecord) -> dict | None:
        text = record["before_image"]
        return None if text is None else self.codecs[table_of(record)].decode(text)

    def after(self, record: LogRecord) -> dict | None:
        text = record["after_image"]
        return None if text is None else self.codecs[table_of(record)].decode(text)

    def key(self, record: LogRecord, row: dict) -> tuple:
        return tuple(row[column] for column in self.keys[table_of(record)])

    def touched_keys(self, record: LogRecord) -> list[tuple]:
        """Keys a change locks: the old and the new key of an update, the row's key otherwise."""
        keys = []
        for row in (self.before(record), self.after(record)):
            if row is not None and self.key(record, row) not in keys:
                keys.append(self.key(record, row))
        return keys


def feature_counts(records: list[LogRecord], registrations: dict[str, Registration]) -> dict[str, int]:
    """How often each feature the generator promises shows in the landed records."""
    images = Images(registrations)
    found = uows(records)
    counts = dict.fromkeys(
        ("key_update", "reinsert", "multi_insert", "rollback", "commit", "unregistered", "awkward_string"), 0
    )
    nulls: set[tuple[str, str]] = set()
    gone: dict[tuple, str] = {}
    bases: dict[str, int] = {}
    for record in sorted(records, key=lambda record: record["log_position"]):
        kind = record["record_type"]
        if kind in ("C", "R"):
            counts["commit" if kind == "C" else "rollback"] += 1
            continue
        table = table_of(record)
        if table not in registrations:
            counts["unregistered"] += 1
            continue
        base = record["log_position"][:19]
        bases[base] = bases.get(base, 0) + 1
        before, after = images.before(record), images.after(record)
        if before is not None and (after is None or images.key(record, before) != images.key(record, after)):
            gone[(table, images.key(record, before))] = record["uow_id"]
            counts["key_update"] += after is not None
        if after is not None:
            counts["reinsert"] += gone.pop((table, images.key(record, after)), None) is not None
            for column, value in after.items():
                if value is None:
                    nulls.add((table, column))
                elif isinstance(value, str) and any(mark in value for mark in ("'", '"', "\\", "ë", "東")):
                    counts["awkward_string"] += 1
    counts["multi_insert"] = sum(1 for rows in bases.values() if rows > 1)
    nullable = {
        (name, column.name)
        for name, registration in registrations.items()
        for column in registration.columns
        if column.name not in registration.key_columns
    }
    counts["non_key_columns_never_null"] = len(nullable - nulls)
    counts["open_at_end"] = sum(1 for uow in found.values() if uow.end is None)
    return counts
