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
