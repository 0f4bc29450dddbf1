"""The schema history of the registered tables (ADR 0012): each change of a table's columns that
the source's log shows, at the log position of the first change under the new shape.

The declaration says what is replicated and the columns at registration; the history, a table
of the landing schema, says the source's shape at each position, and at run time it is the
truth: validation, the CD and CCD views and the targets follow it (macro lakerep_registrations).
A history row is committed before the first record under its shape lands, so every cycle that
judges such a record knows its shape. Landed again after a crash, a change adds nothing: its
row is keyed by table, position, kind and column.

Kinds of change: add_column (the new column's default for the rows that existed before it,
from the catalog's attmissingval), drop_column (the column stays, null from there on),
widen_column (int to bigint, more digits of a decimal, float to double), and unsafe (a key
change, any other type change, a drop and an add in one message, which may be a rename): the
table's records from that position are held back, named schema_change_unsafe, until the table
is declared again with the source's columns (lakerep register --sync, which the unsafe row's
columns_after match) and its members refreshed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from lakerep.delta_tables import create_if_missing
from lakerep.landing import LANDING_SCHEMA

SCHEMA_HISTORY_TABLE = f"{LANDING_SCHEMA}.source_schema_history"
_ABOVE_EVERY_POSITION = "F" * 20
_COLUMNS = (
    "source_owner string not null, source_table string not null, log_position string not null, "
    "change_kind string not null, column_name string, type_before string, type_after string, "
    "column_default string, detail string not null, columns_before string not null, "
    "columns_after string not null, recorded_at timestamp not null"
)


@dataclass(frozen=True)
class Column:
    name: str
    data_type: str  # the registered (Spark) type
    dropped: bool = False


@dataclass(frozen=True)
class Shape:
    """A table's columns as the lake knows them at a position (dropped ones kept, marked), its
    registered key, and whether an unsafe change stopped it."""

    columns: tuple[Column, ...]
    key_columns: tuple[str, ...]
    stopped: bool = False

    def live(self) -> dict[str, str]:
        return {column.name: column.data_type for column in self.columns if not column.dropped}

    def as_json(self) -> str:
        return json.dumps([[name, data_type] for name, data_type in self.live().items()])


@dataclass(frozen=True)
class Change:
    kind: str
    column_name: str | None
    type_before: str | None
    type_after: str | None
    detail: str
    column_default: str | None = None


@dataclass(frozen=True)
class SourceColumn:
    """A column as a Relation message describes it: PostgreSQL's type (format_type) and the type
    it registers as (None when none fits)."""

    name: str
    postgresql_type: str
    registered_type: str | None


def changes_between(shape: Shape, columns: list[SourceColumn], identity: Iterable[str]) -> list[Change]:
    """What turns `shape` into the source's `columns` (identity: the columns the log flags as
    the replica identity's); one unsafe change, naming every difference, when any is unsafe."""
    live = shape.live()
    names = [column.name for column in columns]
    added = [column for column in columns if column.name not in live]
    dropped = [name for name in live if name not in names]
    safe: list[Change] = []
    unsafe: list[str] = []
    if added and dropped:
        unsafe.append(
            f"dropped {', '.join(dropped)} and added {', '.join(c.name for c in added)} in one change "
            "(a rename?)"
        )
    flagged = set(identity)
    if set(shape.key_columns) & set(dropped) or (
        set(shape.key_columns) - set(dropped) - flagged and flagged != set(names)
    ):
        unsafe.append(
            f"the key ({', '.join(shape.key_columns)}) changed: the log now carries "
            f"({', '.join(name for name in names if name in flagged)})"
        )
    for column in columns:
        before = live.get(column.name)
        if before is None:
            continue
        after = column.registered_type
        if after == before or before == "string":  # text holds every value's text form
            continue
        if after is not None and widens(before, after):
            safe.append(Change("widen_column", column.name, before, after,
                               f"{column.name} widened to {column.postgresql_type}"))  # fmt: skip
        else:
            unsafe.append(f"{column.name} changed type from {before} to {column.postgresql_type}")
    if not unsafe:
        for column in added:
            if column.registered_type is None:
                unsafe.append(f"{column.name} was added as {column.postgresql_type}, which no type holds")
            else:
                safe.append(Change("add_column", column.name, None, column.registered_type,
                                   f"added {column.name} {column.postgresql_type}"))  # fmt: skip
        for name in dropped:
            safe.append(Change("drop_column", name, live[name], None, f"dropped {name}"))
    if unsafe:
        return [Change("unsafe", None, None, None, "; ".join(unsafe))]
    return safe


_INTEGERS = ("tinyint", "smallint", "int", "bigint")
_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")


def widens(before: str, after: str) -> bool:
    """Whether every value of the registered type `before` is one of `after`, as Delta's type
    widening changes a column: a larger integer, float to double, a decimal with at least as many
    digits on each side of the point."""
    if before in _INTEGERS and after in _INTEGERS:
        return _INTEGERS.index(after) > _INTEGERS.index(before)
    if (before, after) == ("float", "double"):
        return True
    old, new = _DECIMAL.fullmatch(before), _DECIMAL.fullmatch(after)
    if old and new:
        (p, s), (p2, s2) = (int(old[1]), int(old[2])), (int(new[1]), int(new[2]))
        return s2 >= s and p2 - s2 >= p - s and (p2, s2) != (p, s)
    return False


def apply_change(shape: Shape, change: Change) -> Shape:
    """The shape after a change."""
    if change.kind == "unsafe":
        return replace(shape, stopped=True)
    if change.kind == "add_column":
        kept = tuple(column for column in shape.columns if column.name != change.column_name)
        return replace(shape, columns=(*kept, Column(change.column_name, change.type_after)))
    columns = []
    for column in shape.columns:
        if column.name == change.column_name:
            column = (replace(column, dropped=True) if change.kind == "drop_column"
                      else replace(column, data_type=change.type_after))  # fmt: skip
        columns.append(column)
    return replace(shape, columns=tuple(columns))


@dataclass(frozen=True)
class HistoryRow:
    source_owner: str
    source_table: str
    log_position: str
    change: Change
    columns_before: str = "[]"  # the live columns and their types, as JSON [[name, type], ...]
    columns_after: str = "[]"

    @property
    def key(self) -> tuple:
        return (self.source_owner, self.source_table, self.log_position, self.change.kind,
                self.change.column_name)  # fmt: skip


class SchemaHistory:
    """The lake's history with the declared shapes: the shape of a table at a position, and the
    rows to record for a Relation message that differs from it."""

    def __init__(self, declared: Mapping[str, Shape], rows: Iterable[HistoryRow]) -> None:
        self._declared = dict(declared)
        self._rows = sorted(rows, key=lambda row: row.log_position)
        self._keys = {row.key for row in self._rows}

    def shape_at(self, name: str, position: str) -> Shape | None:
        """The shape of the table `schema.table` as of a position (its changes at or below it);
        None when it is not registered."""
        declared = shape = self._declared.get(name)
        if shape is None:
            return None
        for row in self._rows:
            if f"{row.source_owner}.{row.source_table}" == name and row.log_position <= position:
                if row.change.kind == "unsafe" and row.columns_after == declared.as_json():
                    shape = declared  # declared again as the source is since: resumed
                elif not shape.stopped:
                    shape = apply_change(shape, row.change)
        return shape

    def latest(self, name: str) -> Shape | None:
        """The table's shape after every change the history holds."""
        return self.shape_at(name, _ABOVE_EVERY_POSITION)

    def observe(
        self, name: str, position: str, columns: list[SourceColumn], identity: Iterable[str]
    ) -> list[HistoryRow]:
        """The new history rows of a table whose first change under a Relation message is at
        `position` (and remembers them, so the rest of a read compares with the new shape)."""
        shape = self.shape_at(name, position)
        if shape is None or shape.stopped:
            return []
        owner, _, table = name.rpartition(".")
        changes = changes_between(shape, columns, identity)
        if changes and all(change.kind != "unsafe" for change in changes):
            latest = self.latest(name)
            if not latest.stopped and not changes_between(latest, columns, identity):
                # A later row has this change: the slot gives transactions in commit order, and this
                # one's first change under the new shape precedes that row's (validation takes the
                # latest shape). An unsafe change is recorded again: its lower position stops more.
                return []
        after = shape
        for change in changes:
            after = apply_change(after, change)
        # after an unsafe change, the source's own columns: the declaration that holds them
        # (lakerep register --sync) resumes the table
        source_shape = json.dumps([[column.name, column.registered_type] for column in columns])
        rows = [
            HistoryRow(owner, table, position, change, shape.as_json(),
                       source_shape if change.kind == "unsafe" else after.as_json())
            for change in changes
        ]  # fmt: skip
        rows = [row for row in rows if row.key not in self._keys]
        self._rows = sorted([*self._rows, *rows], key=lambda row: row.log_position)
        self._keys |= {row.key for row in rows}
        return rows


def declared_shapes(registrations: Mapping) -> dict[str, Shape]:
    """name -> Shape of lakerep.registrations.Registration by name."""
    return {
        name: Shape(
            tuple(Column(c.name, c.data_type.lower()) for c in registration.columns),
            tuple(registration.key_columns),
        )
        for name, registration in registrations.items()
    }


def read_history(spark) -> list[HistoryRow]:
    """The lake's history rows (none before the first change was recorded)."""
    if not spark.catalog.tableExists(SCHEMA_HISTORY_TABLE):
        return []
    return [
        HistoryRow(
            row.source_owner,
            row.source_table,
            row.log_position,
            Change(
                row.change_kind,
                row.column_name,
                row.type_before,
                row.type_after,
                row.detail,
                row.column_default,
            ),
            row.columns_before,
            row.columns_after,
        )
        for row in spark.table(SCHEMA_HISTORY_TABLE).collect()
    ]


def record_history(spark, rows: list[HistoryRow]) -> None:
    """Commit new history rows (one commit): SchemaHistory.observe's, which left out those the
    lake held when it was read (this source's reader is the table's one writer)."""
    spark.sql(f"create schema if not exists {LANDING_SCHEMA}")
    create_if_missing(spark, SCHEMA_HISTORY_TABLE, f"({_COLUMNS}) using delta")
    now = datetime.now(UTC).replace(tzinfo=None)
    values = []
    for row in rows:
        change = row.change
        values.append((row.source_owner, row.source_table, row.log_position, change.kind, change.column_name,
                       change.type_before, change.type_after, change.column_default, change.detail,
                       row.columns_before, row.columns_after, now))  # fmt: skip
    spark.createDataFrame(values, _COLUMNS.replace(" not null", "")).write.insertInto(SCHEMA_HISTORY_TABLE)


def watch_shapes(
    records: Iterator[dict],
    last_relation: Callable[[], object],
    history: SchemaHistory,
    describe: Callable[[object], list[SourceColumn]],
    default_of: Callable[[str, str], str | None],
    found: list[HistoryRow],
) -> Iterator[dict]:
    """The records, unchanged; each Relation message met (last_relation, once per message) is
    compared with the table's shape at its first change, and what changed goes to `found`, to be
    recorded before the records land. An added column takes its default from default_of(name,
    column)."""
    # each table's relation last compared, held: an id() of a freed relation can be a new one's
    compared: dict[str, object] = {}
    for record in records:
        relation = last_relation() if record["record_type"] in {"I", "U", "D"} else None
        name = relation and f"{relation.schema}.{relation.table}"
        if relation is not None and compared.get(name) is not relation:
            compared[name] = relation
            rows = history.observe(name, record["log_position"], describe(relation), relation.key_columns)
            for row in rows:
                if row.change.kind == "add_column":
                    default = default_of(name, row.change.column_name)
                    row = replace(row, change=replace(row.change, column_default=default))
                found.append(row)
        yield record
