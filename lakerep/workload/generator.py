"""The deterministic workload: a source database whose interleaved transactions write a log.

Transactions hold row locks like a real DBMS: a key touched by an open transaction (inserted,
updated, deleted, or either side of a key-changing update) is not touched by any other until that
transaction ends, and a rollback undoes its changes in the live database. The generator keeps two
states of its own (live, with uncommitted changes; committed) and feeds the oracle as it goes;
tests check one against the other.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from lakerep.registrations import Column, Registration, load_registrations
from lakerep.workload.config import WorkloadConfig
from lakerep.workload.oracle import Oracle
from lakerep.workload.rows import Key, KeyPool, Row, RowFactory, below
from lakerep.workload.snapshot import Snapshot, unload
from lakerep.workload.values import RowCodec, format_position, format_timestamp, parse_position

RECORD_FIELDS = (
    "log_position",
    "uow_id",
    "record_type",
    "source_owner",
    "source_table",
    "log_timestamp",
    "auth_id",
    "auth_token",
    "before_image",
    "after_image",
)
LogRecord = dict[str, str | None]

UNREGISTERED_TABLE = Registration(
    source_owner="AUDIT",
    source_table="EVENTS",
    columns=(Column("event_id", "bigint"), Column("message", "string")),
    key_columns=("event_id",),
    before_image_prefix=None,
    key_updates_as_delete_insert=False,
    ccd_condensed=False,
    ccd_complete=False,
    disable_refresh=False,
)
AUTH_IDS = ("APPUSER", "BATCH01", "O'CONNOR", "WEBAPP")
AUTH_TOKEN_PREFIXES = ("web", "batch", "api", "job")
MAX_ROWS_PER_MULTI_INSERT = 16
POSITION_STEP = 0x10

_INSERT, _MULTI_INSERT, _UPDATE, _KEY_UPDATE, _DELETE, _REINSERT = range(6)
_BASE_WEIGHTS = (30.0, 5.0, 33.0, 6.0, 14.0, 6.0)
# Upper bounds of each kind's share of [0, 1), for a draw by bisection.
_BASE_THRESHOLDS = tuple(sum(_BASE_WEIGHTS[: kind + 1]) / sum(_BASE_WEIGHTS) for kind in range(5))
# How often a long-running transaction is picked, relative to an ordinary one.
_LONG_TRANSACTION_WEIGHT = 0.04
_RETARGET_RATE = 0.02


@dataclass
class LandingBatch:
    number: int
    records: list[LogRecord]
    # The highest log position written so far (landed or not): the current end of the log.
    log_end_position: str | None = None


@dataclass
class _Table:
    name: str
    registration: Registration
    factory: RowFactory
    codec: RowCodec
    live: dict[Key, Row] = field(default_factory=dict)
    # The JSON image of every live row: a row's after image is the next change's before image.
    images: dict[Key, str | None] = field(default_factory=dict)
    committed: dict[Key, Row] = field(default_factory=dict)
    live_keys: KeyPool = field(default_factory=KeyPool)
    # Keys some row had and no live row has now: for re-inserts and key-changing updates.
    free_keys: KeyPool = field(default_factory=KeyPool)


@dataclass
class _Transaction:
    uow_id: str
    auth_id: str
    auth_token: str
    planned_operations: int
    rolls_back: bool
    long_running: bool
    operations_done: int = 0
    # (table, operation, before, after, before image) in log order, to commit or undo.
    changes: list[tuple[_Table, str, Row | None, Row | None, str | None]] = field(default_factory=list)
    locks: list[tuple[str, Key]] = field(default_factory=list)
    deleted: list[tuple[_Table, Key]] = field(default_factory=list)
    # Commit landing order holds the records back until the transaction ends.
    held_records: list[LogRecord] = field(default_factory=list)


class Workload:
    def __init__(
        self,
        seed: int,
        registrations: dict[str, Registration] | None = None,
        config: WorkloadConfig | None = None,
    ) -> None:
        self.seed = seed
        self.config = config or WorkloadConfig()
        self.registrations = dict(registrations if registrations is not None else load_registrations())
        self._rng = random.Random(seed)
        self._tables = {
            name: self._new_table(registration) for name, registration in self.registrations.items()
        }
        self._registered_tables = list(self._tables.values())
        self._unregistered_table: _Table | None = None
        if self.config.unregistered_share > 0 and UNREGISTERED_TABLE.qualified_name not in self._tables:
            self._unregistered_table = self._new_table(UNREGISTERED_TABLE)
        self.oracle = Oracle(self.registrations)
        self._next_position = self.config.first_position
        self._last_position: int | None = None
        self._clock = self.config.base_time
        self._clock_text = format_timestamp(self._clock)
        self._open: list[_Transaction] = []
        self._long_open = 0
        self._locks: dict[tuple[str, Key], _Transaction] = {}
        self._target_open = self.config.min_open_transactions
        self._uow_count = 0
        self._batch_number = 0
        self._landing: list[LogRecord] = []
        self._landing_in_log_order = self.config.landing_order == "log"

    # -- public --------------------------------------------------------------------------------

    def next_batch(self, log_records: int, finish: bool = False) -> LandingBatch:
        """Write the next log_records log records and return what lands in this batch.

        With finish, every transaction still open then ends too (commit, or rollback if it was
        going to roll back), so nothing is left in flight.
        """
        if log_records < 0:
            raise ValueError(f"log_records must not be negative, got {log_records}")
        self._batch_number += 1
        self._landing = []
        for _ in range(log_records):
            self._step()
        if finish:
            for transaction in list(self._open):
                self._end(transaction, commit=not transaction.rolls_back)
        batch = LandingBatch(self._batch_number, self._landing, self.log_end_position)
        self._landing = []
        return batch

    def close_open_transactions(self) -> LandingBatch:
        """A batch that only ends the transactions still open."""
        return self.next_batch(0, finish=True)

    @property
    def log_end_position(self) -> str | None:
        return None if self._last_position is None else format_position(self._last_position)

    @property
    def tables(self) -> tuple[str, ...]:
        return tuple(self.registrations)

    def committed_rows(self, table: str) -> dict[Key, dict[str, object]]:
        """The generator's own committed state of a table (maintained at commit, not replayed)."""
        return self._as_dicts(self._table(table), self._table(table).committed)

    def live_rows(self, table: str) -> dict[Key, dict[str, object]]:
        """The live state: committed rows plus the effects of open transactions."""
        return self._as_dicts(self._table(table), self._table(table).live)

    def snapshot(self, table: str, unload_start: str, unload_end: str) -> Snapshot:
        registration = self.registrations.get(table)
        if registration is None:
            raise ValueError(f"cannot unload {table}: it is not a registered table")
        for label, position in (("start", unload_start), ("end", unload_end)):
            number = parse_position(position)
            if self._last_position is None or not self.config.first_position <= number <= self._last_position:
                raise ValueError(
                    f"unload {label} position {position} is not a position already written "
                    f"({format_position(self.config.first_position)} .. {self.log_end_position})"
                )
        return unload(self.oracle, registration, unload_start, unload_end)

    # -- scheduling ----------------------------------------------------------------------------

    def _step(self) -> None:
        """Write exactly one log record."""
        rng = self._rng
        if rng.random() < _RETARGET_RATE:
            self._target_open = rng.randint(
                self.config.min_open_transactions, self.config.max_open_transactions
            )
        if len(self._open) - self._long_open < self._target_open:
            self._operate(self._begin())
            return
        if self._long_open:
            weights = [_LONG_TRANSACTION_WEIGHT if t.long_running else 1.0 for t in self._open]
            transaction = self._open[_pick_weighted(rng, weights)]
        else:
            transaction = self._open[below(rng, len(self._open))]
        if transaction.operations_done >= transaction.planned_operations:
            self._end(transaction, commit=not transaction.rolls_back)
        else:
            self._operate(transaction)

    def _begin(self) -> _Transaction:
        rng = self._rng
        config = self.config
        long_running = (
            self._long_open < config.max_long_transactions and rng.random() < config.long_transaction_rate
        )
        self._long_open += long_running
        self._uow_count += 1
        transaction = _Transaction(
            uow_id=format_position(self._next_position),
            auth_id=rng.choice(AUTH_IDS),
            auth_token=f"{rng.choice(AUTH_TOKEN_PREFIXES)}-{self._uow_count:08d}",
            planned_operations=self._planned_size(long_running),
            rolls_back=rng.random() < config.rollback_rate,
            long_running=long_running,
        )
        self._open.append(transaction)
        self.oracle.begin(transaction.uow_id, transaction.auth_id, transaction.auth_token)
        return transaction

    def _planned_size(self, long_running: bool) -> int:
        rng = self._rng
        limit = self.config.max_transaction_operations
        if long_running:
            return rng.randint(min(5, limit), min(30, limit))
        draw = rng.random()
        if draw < 0.3:
            size = 1
        elif draw < 0.7:
            size = rng.randint(2, 5)
        elif draw < 0.93:
            size = rng.randint(6, 15)
        else:
            size = rng.randint(16, max(16, limit))
        return min(size, limit)

    # -- operations ----------------------------------------------------------------------------

    def _operate(self, transaction: _Transaction) -> None:
        rng = self._rng
        unregistered = self._unregistered_table
        if unregistered is not None and rng.random() < self.config.unregistered_share:
            table = unregistered
        else:
            table = rng.choice(self._registered_tables)
        fill = len(table.live) / self.config.target_rows_per_table
        if fill <= 1.0:
            kind = bisect_right(_BASE_THRESHOLDS, rng.random())
        else:
            kind = _pick_weighted(rng, _with_more_deletes(fill))
        factory = table.factory

        if kind in (_UPDATE, _KEY_UPDATE, _DELETE):
            key = self._existing_key(transaction, table)
            if key is not None:
                before = table.live[key]
                if kind == _DELETE:
                    self._write(transaction, table, "D", [(before, None)])
                elif kind == _UPDATE:
                    self._write(transaction, table, "U", [(before, factory.changed_row(before))])
                else:
                    new_key = self._free_key(transaction, table) if rng.random() < 0.3 else None
                    new_key = new_key or factory.fresh_key()
                    self._write(transaction, table, "U", [(before, factory.changed_row(before, new_key))])
                return
            kind = _INSERT

        if kind == _MULTI_INSERT:
            count = rng.randint(2, MAX_ROWS_PER_MULTI_INSERT)
            rows = [(None, factory.new_row(factory.fresh_key())) for _ in range(count)]
            self._write(transaction, table, "I", rows)
            return
        key = self._free_key(transaction, table) if kind == _REINSERT else None
        self._write(transaction, table, "I", [(None, factory.new_row(key or factory.fresh_key()))])

    def _existing_key(self, transaction: _Transaction, table: _Table) -> Key | None:
        """A live key this transaction may touch: one it already holds, or one nobody holds."""
        rng = self._rng
        if transaction.locks and rng.random() < 0.25:
            table_name, key = transaction.locks[rng.randrange(len(transaction.locks))]
            if table_name == table.name and key in table.live:
                return key
        for _ in range(4):
            key = table.live_keys.choice(rng)
            if key is None:
                return None
            holder = self._locks.get((table.name, key))
            if holder is None or holder is transaction:
                return key
        return None

    def _free_key(self, transaction: _Transaction, table: _Table) -> Key | None:
        """A key that existed and is gone: one this transaction deleted, or one deleted earlier."""
        rng = self._rng
        if transaction.deleted and rng.random() < 0.5:
            deleted_table, key = transaction.deleted[rng.randrange(len(transaction.deleted))]
            if deleted_table is table and key not in table.live:
                return key
        for _ in range(3):
            key = table.free_keys.choice(rng)
            if key is None:
                return None
            if key in table.live:
                table.free_keys.discard(key)
                continue
            holder = self._locks.get((table.name, key))
            if holder is None or holder is transaction:
                return key
        return None

    def _write(
        self,
        transaction: _Transaction,
        table: _Table,
        operation: str,
        rows: list[tuple[Row | None, Row | None]],
    ) -> None:
        """One log record; several row changes (a multi-row insert) are numbered in the low digit."""
        base = self._next_position
        self._next_position = base + POSITION_STEP
        _, timestamp = self._tick()
        key_of, encode, live = table.factory.key_of, table.codec.encode, table.live
        registration = table.registration
        uow_id = transaction.uow_id
        landing = self._landing if self._landing_in_log_order else transaction.held_records
        for offset, (before, after) in enumerate(rows):
            # Positions are formatted inline: this loop runs for every row change of the log.
            position = f"{base + offset:020X}"
            old_key = new_key = before_image = after_image = None
            if before is not None:
                old_key = key_of(before)
                self._lock(transaction, table, old_key)
                before_image = table.images[old_key]
            if after is not None:
                new_key = key_of(after)
                if new_key != old_key and new_key in live:
                    raise RuntimeError(f"{table.name}: generated a duplicate key {new_key}")
                if new_key != old_key:
                    self._lock(transaction, table, new_key)
                after_image = encode(after)
            self._apply_live(table, before, after, after_image)
            if old_key is not None and new_key is None:
                transaction.deleted.append((table, old_key))
            transaction.changes.append((table, operation, before, after, before_image))
            self.oracle.change(uow_id, table.name, position, operation, before, after)
            landing.append(
                {
                    "log_position": position,
                    "uow_id": uow_id,
                    "record_type": operation,
                    "source_owner": registration.source_owner,
                    "source_table": registration.source_table,
                    "log_timestamp": timestamp,
                    "auth_id": transaction.auth_id,
                    "auth_token": transaction.auth_token,
                    "before_image": before_image,
                    "after_image": after_image,
                }
            )
        self._last_position = base + len(rows) - 1
        transaction.operations_done += 1

    def _lock(self, transaction: _Transaction, table: _Table, key: Key) -> None:
        lock = (table.name, key)
        holder = self._locks.get(lock)
        if holder is None:
            self._locks[lock] = transaction
            transaction.locks.append(lock)
        elif holder is not transaction:
            raise RuntimeError(f"{table.name} key {key} is locked by UOW {holder.uow_id}")

    def _end(self, transaction: _Transaction, commit: bool) -> None:
        position = format_position(self._next_position)
        self._last_position = self._next_position
        self._next_position += POSITION_STEP
        moment, timestamp = self._tick()
        if commit:
            for table, _, before, after, _ in transaction.changes:
                self._apply_committed(table, before, after)
            self.oracle.commit(transaction.uow_id, position, moment)
        else:
            for table, _, before, after, before_image in reversed(transaction.changes):
                self._undo_live(table, before, after, before_image)
            self.oracle.rollback(transaction.uow_id)
        for lock in transaction.locks:
            del self._locks[lock]
        self._open.remove(transaction)
        self._long_open -= transaction.long_running
        record: LogRecord = dict.fromkeys(RECORD_FIELDS)
        record.update(
            log_position=position,
            uow_id=transaction.uow_id,
            record_type="C" if commit else "R",
            log_timestamp=timestamp,
            auth_id=transaction.auth_id,
            auth_token=transaction.auth_token,
        )
        self._landing.extend(transaction.held_records)
        self._landing.append(record)
        transaction.held_records = []

    def _tick(self) -> tuple[datetime, str]:
        """Advance the source clock for one log record: usually a few ms to a second, sometimes 0."""
        rng = self._rng
        if rng.random() >= 0.03:
            self._clock += timedelta(microseconds=2_000 + below(rng, 998_001))
            self._clock_text = format_timestamp(self._clock)
        return self._clock, self._clock_text

    # -- the generator's own states ------------------------------------------------------------

    @staticmethod
    def _apply_live(table: _Table, before: Row | None, after: Row | None, after_image: str | None) -> None:
        key_of = table.factory.key_of
        if before is not None:
            old_key = key_of(before)
            del table.live[old_key]
            del table.images[old_key]
            table.live_keys.discard(old_key)
            table.free_keys.add(old_key)
        if after is not None:
            new_key = key_of(after)
            table.live[new_key] = after
            table.images[new_key] = after_image
            table.live_keys.add(new_key)
            table.free_keys.discard(new_key)

    @staticmethod
    def _undo_live(table: _Table, before: Row | None, after: Row | None, before_image: str | None) -> None:
        key_of = table.factory.key_of
        if after is not None:
            new_key = key_of(after)
            del table.live[new_key]
            del table.images[new_key]
            table.live_keys.discard(new_key)
            table.free_keys.add(new_key)
        if before is not None:
            old_key = key_of(before)
            table.live[old_key] = before
            table.images[old_key] = before_image
            table.live_keys.add(old_key)
            table.free_keys.discard(old_key)

    @staticmethod
    def _apply_committed(table: _Table, before: Row | None, after: Row | None) -> None:
        key_of = table.factory.key_of
        if before is not None:
            del table.committed[key_of(before)]
        if after is not None:
            table.committed[key_of(after)] = after

    def _new_table(self, registration: Registration) -> _Table:
        return _Table(
            name=registration.qualified_name,
            registration=registration,
            factory=RowFactory(registration, self._rng, self.config.null_rate),
            codec=RowCodec(registration.columns),
        )

    def _table(self, name: str) -> _Table:
        table = self._tables.get(name)
        if table is None:
            raise KeyError(f"{name} is not a registered table; known: {', '.join(self._tables)}")
        return table

    @staticmethod
    def _as_dicts(table: _Table, rows: dict[Key, Row]) -> dict[Key, dict[str, object]]:
        names = table.registration.column_names
        return {key: dict(zip(names, row, strict=True)) for key, row in rows.items()}


def _pick_weighted(rng: random.Random, weights: list[float] | tuple[float, ...]) -> int:
    """Index drawn with the given weights (random.choices is slow for a handful of items)."""
    point = rng.random() * sum(weights)
    for index, weight in enumerate(weights):
        point -= weight
        if point < 0:
            return index
    return len(weights) - 1


def _with_more_deletes(fill: float) -> list[float]:
    # A table past its target size deletes more, so tables level off instead of growing forever.
    weights = list(_BASE_WEIGHTS)
    weights[_DELETE] *= fill**4
    return weights
