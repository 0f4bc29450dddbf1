"""The expected outcome of replication, kept from the generator's own transactions.

The oracle is told about every change as the generator makes it (Python values, never the
emitted JSON), keeps committed transactions in commit order and forgets rolled-back ones. It
answers "what must a replica hold at commit position P" by replaying, with no SQL involved.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from lakerep.registrations import Registration
from lakerep.workload.rows import Key, Row
from lakerep.workload.values import Value, parse_position


class OracleError(AssertionError):
    """The changes do not replay cleanly: the generator broke its own database's rules."""


class Change(NamedTuple):
    """One row change. Rows are kept as tuples (memory); before/after give them as dicts.

    A named tuple rather than a dataclass: a million of them are made, and a tuple is the
    cheapest object to build and to keep.
    """

    table: str
    uow_id: str
    commit_position: str | None
    commit_timestamp: datetime | None
    log_position: str
    operation: str
    before_values: Row | None
    after_values: Row | None
    registration: Registration
    key_indexes: tuple[int, ...]

    def __repr__(self) -> str:
        # The registration would drown the change in a failing test's output.
        return (
            f"Change({self.table} {self.operation} key={self.key} log={self.log_position} "
            f"uow={self.uow_id} commit={self.commit_position})"
        )

    @property
    def key(self) -> Key:
        """Key of the row as it is after the change (as it was, for a delete)."""
        row = self.after_values if self.after_values is not None else self.before_values
        if row is None:
            raise OracleError(f"change at {self.log_position} has neither a before nor an after image")
        return tuple(row[i] for i in self.key_indexes)

    @property
    def before_key(self) -> Key | None:
        if self.before_values is None:
            return None
        return tuple(self.before_values[i] for i in self.key_indexes)

    @property
    def before(self) -> dict[str, Value] | None:
        return None if self.before_values is None else self._as_dict(self.before_values)

    @property
    def after(self) -> dict[str, Value] | None:
        return None if self.after_values is None else self._as_dict(self.after_values)

    def _as_dict(self, row: Row) -> dict[str, Value]:
        return dict(zip(self.registration.column_names, row, strict=True))


@dataclass(frozen=True)
class CommittedUow:
    uow_id: str
    begin_position: str
    commit_position: str
    commit_timestamp: datetime
    auth_id: str
    auth_token: str
    changes: tuple[Change, ...]
    unregistered_changes: int


@dataclass
class _PendingUow:
    uow_id: str
    auth_id: str
    auth_token: str
    # (table, log position, operation, before, after) until the outcome is known.
    changes: list[tuple[str, str, str, Row | None, Row | None]] = field(default_factory=list)
    unregistered_changes: int = 0


class Oracle:
    def __init__(self, registrations: dict[str, Registration]) -> None:
        self._registrations = registrations
        self._key_indexes = {
            name: tuple(reg.column_names.index(key) for key in reg.key_columns)
            for name, reg in registrations.items()
        }
        self._pending: dict[str, _PendingUow] = {}
        self._committed: list[CommittedUow] = []
        self._commit_positions: list[str] = []
        self._rolled_back: list[str] = []
        # Per table, committed changes in commit order and the commit position of each, for bisect.
        self._table_changes: dict[str, list[Change]] = {name: [] for name in registrations}
        self._table_commit_positions: dict[str, list[str]] = {name: [] for name in registrations}
        self._unregistered_committed = 0
        self._unregistered_written = 0
        self._not_indexed: list[tuple[_PendingUow, str, datetime]] = []

    # -- fed by the generator ------------------------------------------------------------------

    def begin(self, uow_id: str, auth_id: str, auth_token: str) -> None:
        if uow_id in self._pending:
            raise OracleError(f"UOW {uow_id} begun twice")
        self._pending[uow_id] = _PendingUow(uow_id, auth_id, auth_token)

    def change(
        self,
        uow_id: str,
        table: str,
        log_position: str,
        operation: str,
        before: Row | None,
        after: Row | None,
    ) -> None:
        uow = self._pending[uow_id]
        if table not in self._registrations:
            uow.unregistered_changes += 1
            self._unregistered_written += 1
            return
        uow.changes.append((table, log_position, operation, before, after))

    def commit(self, uow_id: str, commit_position: str, commit_timestamp: datetime) -> None:
        uow = self._pending.pop(uow_id)
        if self._commit_positions and commit_position <= self._commit_positions[-1]:
            raise OracleError(f"commit position {commit_position} is not above the previous commit")
        self._commit_positions.append(commit_position)
        self._unregistered_committed += uow.unregistered_changes
        # Indexed on the first query, not here: generating a long log asks for none.
        self._not_indexed.append((uow, commit_position, commit_timestamp))

    def _index_commits(self) -> None:
        for uow, commit_position, commit_timestamp in self._not_indexed:
            changes = tuple(
                Change(
                    table,
                    uow.uow_id,
                    commit_position,
                    commit_timestamp,
                    log_position,
                    operation,
                    before,
                    after,
                    self._registrations[table],
                    self._key_indexes[table],
                )
                for table, log_position, operation, before, after in uow.changes
            )
            self._committed.append(
                CommittedUow(
                    uow_id=uow.uow_id,
                    begin_position=uow.uow_id,
                    commit_position=commit_position,
                    commit_timestamp=commit_timestamp,
                    auth_id=uow.auth_id,
                    auth_token=uow.auth_token,
                    changes=changes,
                    unregistered_changes=uow.unregistered_changes,
                )
            )
            for change in changes:
                self._table_changes[change.table].append(change)
                self._table_commit_positions[change.table].append(commit_position)
        self._not_indexed.clear()

    def rollback(self, uow_id: str) -> None:
        self._pending.pop(uow_id)
        self._rolled_back.append(uow_id)

    # -- queries -------------------------------------------------------------------------------

    @property
    def tables(self) -> tuple[str, ...]:
        return tuple(self._registrations)

    @property
    def unregistered_change_count(self) -> int:
        """Committed row changes to tables that are not registered (they must not replicate)."""
        return self._unregistered_committed

    @property
    def unregistered_changes_written(self) -> int:
        """Every unregistered row change written to the log, whatever its UOW's outcome."""
        return self._unregistered_written

    def commit_positions(self) -> list[str]:
        return list(self._commit_positions)

    def committed_uows(self) -> list[CommittedUow]:
        self._index_commits()
        return list(self._committed)

    def open_uows(self) -> list[str]:
        """UOWs begun and not yet ended, in the order they began."""
        return list(self._pending)

    def rolled_back_uows(self) -> list[str]:
        return list(self._rolled_back)

    def open_changes(self) -> list[Change]:
        """Changes of open UOWs to registered tables, in log order; they have no commit position."""
        changes = [
            Change(
                table=table,
                uow_id=uow.uow_id,
                commit_position=None,
                commit_timestamp=None,
                log_position=log_position,
                operation=operation,
                before_values=before,
                after_values=after,
                registration=self._registrations[table],
                key_indexes=self._key_indexes[table],
            )
            for uow in self._pending.values()
            for table, log_position, operation, before, after in uow.changes
        ]
        changes.sort(key=lambda change: change.log_position)
        return changes

    def history(self, table: str, after: str | None = None, up_to: str | None = None) -> list[Change]:
        """Committed changes with after < commit position <= up_to, in commit then log order."""
        self._index_commits()
        changes = self._table_changes[self._known(table)]
        positions = self._table_commit_positions[table]
        low = 0 if after is None else bisect_right(positions, _checked(after))
        high = len(positions) if up_to is None else bisect_right(positions, _checked(up_to))
        return changes[low:high] if low < high else []

    def state_at(self, table: str, commit_position: str | None = None) -> dict[Key, dict[str, Value]]:
        """Committed rows after every UOW with commit position <= commit_position (None: all)."""
        rows = replay_changes({}, self.history(table, None, commit_position))
        names = self._registrations[table].column_names
        return {key: dict(zip(names, row, strict=True)) for key, row in rows.items()}

    def row_states(self, table: str, commit_position: str | None = None) -> dict[Key, Row]:
        """As state_at, rows as tuples in column order (cheaper, for bulk comparisons)."""
        return replay_changes({}, self.history(table, None, commit_position))

    def _known(self, table: str) -> str:
        if table not in self._registrations:
            raise KeyError(f"{table} is not a registered table; known: {', '.join(self._registrations)}")
        return table


def replay_changes(rows: dict[Key, Row], changes: list[Change]) -> dict[Key, Row]:
    """Apply changes in order to rows (key -> row tuple), checking the database's own rules."""
    for change in changes:
        before, after = change.before_values, change.after_values
        if before is not None:
            old_key = change.before_key
            if old_key not in rows or rows[old_key] != before:
                raise OracleError(
                    f"{change.table}: {change.operation} at {change.log_position} has a before image "
                    f"that is not the current row of key {old_key}"
                )
            del rows[old_key]
        if after is not None:
            key = change.key
            if key in rows:
                raise OracleError(
                    f"{change.table}: {change.operation} at {change.log_position} onto existing key {key}"
                )
            rows[key] = after
    return rows


def _checked(position: str) -> str:
    parse_position(position)
    return position
