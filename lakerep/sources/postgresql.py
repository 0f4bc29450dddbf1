"""A PostgreSQL database as a source (SPEC §2.1, §2.2): its registered tables' changes, read from
a logical replication slot through pgoutput, the output plugin built into the server.

The slot is what DB2 Capture's restart point is to its log: the server keeps every change past
the slot's confirmed position. read() peeks at the changes past it without moving it; confirm()
moves it, and the caller confirms only once the records have landed in the lake. A crash in
between reads the same transactions again; not_landed() drops those already landed, by their
commit positions, which rise with every transaction the slot delivers.

check() creates the publication on first use and says what the server shows of the slot (the
runner decides, with the lake's record of it, whether a slot may be made: take_new_slot()),
after checking what the server needs: PostgreSQL 15 or later, wal_level logical, a user with the
REPLICATION privilege (or a superuser), and for every table, a replica identity that gives the
key of an updated or deleted row; with the registrations, that each registered key is what the
log carries for a deleted row, and that no registered column is generated (the log never carries
one). The publication publishes a partitioned table's changes under its own name, not its
partitions'. An error of the server after connecting is one SourceError line that says what to
do, never a traceback.

unload() reads a table consistently at one log position, for a refresh (SPEC §2.5, §5): a
temporary slot exports the snapshot of its consistent point, so the rows read are exactly those
of the transactions that committed before that point, and the slot delivers every later one.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from lakerep.durable import durable_step
from lakerep.sources.pgoutput import Decoder, format_lsn, parse_lsn
from lakerep.sources.slot_continuity import SlotFound

DEFAULT_SLOT = "lakerep"  # and the publication's name, unless named apart
# Logical messages in the peek (an unload's synchpoint) came in 14, and CREATE_REPLICATION_SLOT's
# option list, which unload() uses, in 15.
MIN_SERVER_VERSION = 150000
# The unload's temporary slot appends _unload_ and a process id to the name: PostgreSQL allows 63.
SLOT_NAME = re.compile(r"[a-z0-9_]{1,40}")


class SourceError(RuntimeError):
    """The server or its tables cannot be read as a source; the message says what to change."""


@dataclass(frozen=True)
class Unload:
    """A table's rows as of one log position (start and end of the unload are that one
    position): row images as JSON text, each column in PostgreSQL's text form, like a change's."""

    position: str
    rows: list[str]


@dataclass(frozen=True)
class SourceRead:
    """The records of whole transactions past the slot's position, in commit order, and the
    position to confirm once they have landed: past the last commit read, or, when none was,
    the end of the log the read covered (the server can then recycle the WAL of transactions
    that changed no registered table)."""

    records: list[dict]
    confirm_lsn: int | None
    truncated: tuple[str, ...] = ()  # tables a TRUNCATE of the read emptied (SourceStream's)


FETCH_ROWS = 1000  # the slot's messages a read holds at a time


class SourceStream:
    """The records of a read as they are decoded (records, iterated once), and, once they have
    all been taken, the position to confirm (as SourceRead's)."""

    def __init__(self, cursor, flushed: int) -> None:
        self._cursor = cursor
        self._flushed = flushed
        self._decoder = Decoder()
        self.taken = 0  # the records taken so far

    @property
    def records(self) -> Iterator[dict]:
        for lsn, data in self._cursor:
            for record in self._decoder.feed(parse_lsn(lsn), data):
                self.taken += 1
                yield record

    @property
    def last_relation(self):
        """The relation of the last change taken (pgoutput.Decoder.last_relation)."""
        return self._decoder.last_relation

    @property
    def confirm_lsn(self) -> int:
        return self._decoder.end_lsn if self.taken else self._flushed

    @property
    def truncated(self) -> tuple[str, ...]:
        """The registered tables (schema.table) a TRUNCATE emptied in the transactions taken so
        far: no record says so, so their members need a refresh taken after it."""
        return tuple(self._decoder.truncated)


class PostgresqlSource:
    """tables: schema.table names. registered (optional): name -> (columns, key columns) as
    registered, which prepare() checks against what the server's log carries."""

    def __init__(
        self,
        dsn: str,
        tables: Sequence[str],
        slot: str = DEFAULT_SLOT,
        publication: str | None = None,
        registered: Mapping[str, tuple[Sequence[str], Sequence[str]]] | None = None,
    ) -> None:
        if not SLOT_NAME.fullmatch(slot):
            raise SourceError(
                f"a slot name is lower-case letters, digits and _, at most 40 of them, not {slot!r}"
            )
        self.dsn = dsn
        self.tables = [split_name(name) for name in tables]
        self.slot = slot
        self.publication = publication or slot
        self.registered = dict(registered or {})
        self._type_names: dict[tuple[int, int], str] = {}  # (oid, modifier) -> format_type's name

    @classmethod
    def of_registrations(cls, dsn: str, registrations: Mapping, slot: str = DEFAULT_SLOT) -> PostgresqlSource:
        """The source of every registration (lakerep.registrations.Registration by name)."""
        return cls(dsn, list(registrations), slot=slot, registered={
            name: (registration.column_names, registration.key_columns)
            for name, registration in registrations.items()
        })  # fmt: skip

    def _connect(self):
        return connect(self.dsn)

    def prepare(self) -> None:
        """check(), then make the slot if it is missing: for a reader that keeps no record of its
        slot (the source's own tests). The runner opens the source with
        lakerep.sources.landing.open_source, which never makes a slot silently."""
        if self.check().confirmed_lsn is None:
            self.take_new_slot()

    def check(self) -> SlotFound:
        """Check the server and the tables, make the publication if missing, and say what the
        server shows of the slot (made by take_new_slot only)."""
        with self._connect() as connection, _answers("preparing the source", {
            "42501": "create the publication as the tables' owner or a superuser "
                     f"(CREATE PUBLICATION {_quote(self.publication)} FOR TABLE ...), or connect as one",
        }):  # fmt: skip
            wal_level = connection.execute("show wal_level").fetchone()[0]
            if wal_level != "logical":
                raise SourceError(
                    f"the server's wal_level is {wal_level}, and logical decoding needs logical: "
                    "set wal_level = logical in postgresql.conf and restart the server"
                )
            user, may_replicate = connection.execute(
                "select rolname, rolreplication or rolsuper from pg_roles where rolname = current_user"
            ).fetchone()
            if not may_replicate:
                raise SourceError(
                    f"the user {user} may not read a replication slot: ALTER ROLE {user} REPLICATION"
                )
            partitioned = [self._check_table(connection, schema, table) for schema, table in self.tables]
            self._ensure_publication(connection, any(partitioned))
            slot = connection.execute(
                "select slot_type, plugin, database, confirmed_flush_lsn::text, wal_status = 'lost' "
                "from pg_replication_slots where slot_name = %s",
                [self.slot],
            ).fetchone()
            current = parse_lsn(connection.execute("select pg_current_wal_lsn()::text").fetchone()[0])
            if slot is None:
                return SlotFound(self._system_identifier(), current, None)
            slot_type, plugin, database, confirmed, wal_lost = slot
            here = connection.info.dbname
            if slot_type != "logical":
                problem = f"is a {slot_type} slot"
            elif database != here:
                problem = f"belongs to the database {database} of this server, not to {here}"
            elif plugin != "pgoutput":
                problem = f"decodes with {plugin}, not pgoutput"
            else:
                # a slot not yet confirmed at all delivers from its start: nothing is past it
                confirmed_lsn = 0 if confirmed is None else parse_lsn(confirmed)
                return SlotFound(self._system_identifier(), current, confirmed_lsn, bool(wal_lost))
            raise SourceError(f"the replication slot {self.slot} {problem}: name another slot (--slot)")

    def _system_identifier(self) -> str:
        """The server's system identifier: a standby promoted in a failover keeps its primary's."""
        with connect(self.dsn, replication=True) as replication, _answers("identifying the server"):
            return str(replication.execute("IDENTIFY_SYSTEM").fetchone()[0])

    def take_new_slot(self) -> int:
        """Make the slot (dropping one of the name whose WAL is gone); the position it delivers
        changes after. Only when the lake owes a cold start from there, or has read nothing
        (lakerep.sources.landing.open_source): a new slot skips every change before it."""
        with self._connect() as connection, _answers(f"making the replication slot {self.slot}", {
            "53400": "raise max_replication_slots in postgresql.conf and restart the server, or drop a "
                     "slot nobody reads (SELECT slot_name, active FROM pg_replication_slots)",
        }):  # fmt: skip
            connection.execute(
                "select pg_drop_replication_slot(slot_name) from pg_replication_slots "
                "where slot_name = %s and wal_status = 'lost'",
                [self.slot],
            )
            return parse_lsn(connection.execute(
                "select lsn::text from pg_create_logical_replication_slot(%s, 'pgoutput')", [self.slot]
            ).fetchone()[0])  # fmt: skip

    def _check_table(self, connection, schema: str, table: str) -> bool:
        """A key in every change the log carries, and the registered key and columns among them;
        whether the table is partitioned."""
        oid, identity, has_primary_key, partitioned = describe_table(connection, schema, table)
        if identity == "n" or (identity == "d" and not has_primary_key):
            raise SourceError(
                f"{schema}.{table} has no replica identity, so its updates and deletes carry no key: "
                f"add a primary key, or ALTER TABLE {schema}.{table} REPLICA IDENTITY FULL"
            )
        if f"{schema}.{table}" not in self.registered:
            return partitioned
        columns, keys = self.registered[f"{schema}.{table}"]
        generated = sorted(generated_columns(connection, oid) & set(columns))
        if generated:
            raise SourceError(
                f"{schema}.{table}.{generated[0]} is a generated column, and the log never carries "
                "one: leave it out of the registration"
            )
        carried = identity_columns(connection, oid, identity)
        if carried is not None and not set(keys) <= set(carried):
            index = "its primary key" if identity == "d" else "the index of its replica identity"
            raise SourceError(
                f"{schema}.{table} is registered by ({', '.join(keys)}), but its deletes carry "
                f"{index} ({', '.join(carried)}) only: register it by those columns, or "
                f"ALTER TABLE {schema}.{table} REPLICA IDENTITY FULL"
            )
        return partitioned

    def _ensure_publication(self, connection, partitioned: bool) -> None:
        """The publication of the tables, publishing a partitioned table's changes as its own (its
        partitions' names are not registered)."""
        names = ", ".join(f"{_quote(schema)}.{_quote(table)}" for schema, table in self.tables)
        publication = _quote(self.publication)
        found = connection.execute(
            "select pubviaroot from pg_publication where pubname = %s", [self.publication]
        ).fetchone()
        if found is None:
            connection.execute(
                f"create publication {publication} for table {names} with (publish_via_partition_root = true)"
            )
            return
        if partitioned and not found[0]:  # a publication of an earlier lakerep
            connection.execute(f"alter publication {publication} set (publish_via_partition_root = true)")
        published = set(
            connection.execute(
                "select schemaname, tablename from pg_publication_tables where pubname = %s",
                [self.publication],
            ).fetchall()
        )
        missing = [(schema, table) for schema, table in self.tables if (schema, table) not in published]
        if missing:
            added = ", ".join(f"{_quote(schema)}.{_quote(table)}" for schema, table in missing)
            connection.execute(f"alter publication {_quote(self.publication)} add table {added}")

    def describe(self, relation) -> list:
        """A Relation message's columns as schema_history.SourceColumn: each type as format_type
        writes it (asked of the server once per type and modifier) and the type it registers as."""
        from lakerep.sources.catalog import registered_type
        from lakerep.sources.schema_history import SourceColumn

        names = self._type_names
        unknown = sorted(set(relation.types) - set(names))
        if unknown:
            with self._connect() as connection, _answers("reading the types of a changed table"):
                for oid, modifier in unknown:
                    names[(oid, modifier)] = connection.execute(
                        "select format_type(%s, %s)", [oid, None if modifier == -1 else modifier]
                    ).fetchone()[0]
        return [
            SourceColumn(name, names[types], registered_type(names[types]))
            for name, types in zip(relation.columns, relation.types, strict=True)
        ]

    def missing_value(self, name: str, column: str) -> str | None:
        """The value PostgreSQL gives the rows that existed before a column was added (its
        attmissingval: a constant default, in the type's text form), or None."""
        schema, table = split_name(name)
        with self._connect() as connection, _answers(f"reading the default of {name}.{column}"):
            found = connection.execute(
                "select case when a.atthasmissing then (a.attmissingval::text::text[])[1] end "
                "from pg_attribute a join pg_class c on c.oid = a.attrelid "
                "join pg_namespace n on n.oid = c.relnamespace "
                "where n.nspname = %s and c.relname = %s and a.attname = %s and not a.attisdropped",
                [schema, table, column],
            ).fetchone()
        return None if found is None else found[0]

    def read(self, max_changes: int | None = None) -> SourceRead:
        """The whole transactions past the slot's confirmed position, without moving it; with
        max_changes, decoding stops after the transaction that reaches that many messages.
        Logical messages come too: the one unload() writes commits a transaction past the
        unload, so Capture's synchpoint reaches it on an idle source. Held in memory: a runner
        lands through stream() instead."""
        with self.stream(max_changes) as stream:
            records = list(stream.records)
        return SourceRead(records, stream.confirm_lsn, stream.truncated)

    @contextlib.contextmanager
    def stream(self, max_changes: int | None = None, fetch_rows: int = FETCH_ROWS) -> Iterator[SourceStream]:
        """read()'s records one at a time, through a server-side cursor that fetches fetch_rows
        of the slot's messages at a time: a backlog or one transaction of a million rows passes
        through in bounded memory. The slot is busy until the block ends: confirm after it."""
        with self._connect() as connection, _answers(f"reading the slot {self.slot}", {
            "42704": f"the slot {self.slot} is gone, and with it the changes the lake has not read: "
                     "run again, and the run starts cold from a new slot (every member of this source "
                     "then needs a full refresh: lakerep refresh --source)",
            "55000": f"the slot {self.slot} was invalidated, and the changes the lake has not read are "
                     "gone: run again, and the run starts cold from a new slot (every member of this "
                     "source then needs a full refresh: lakerep refresh --source)",
        }):  # fmt: skip
            # The read covers the transactions that commit before the log's flushed end as it is
            # now: when none of them changed a registered table, the slot may move to that end.
            flushed = connection.execute("select pg_current_wal_flush_lsn()::text").fetchone()[0]
            with connection.transaction(), connection.cursor(name="lakerep_peek") as cursor:
                cursor.itersize = fetch_rows
                cursor.execute(
                    "select lsn::text, data from pg_logical_slot_peek_binary_changes(%s, %s::pg_lsn, %s, "
                    "'proto_version', '1', 'publication_names', %s, 'messages', 'true')",
                    [self.slot, flushed, max_changes, self.publication],
                )
                yield SourceStream(cursor, parse_lsn(flushed))

    def confirm(self, lsn: int) -> None:
        """Move the slot past what has landed: the server may then recycle that WAL."""
        with (
            self._connect() as connection,
            _answers(f"confirming the slot {self.slot}"),
            durable_step(f"slot-confirm {self.slot} {format_lsn(lsn)}"),
        ):
            connection.execute(
                "select pg_replication_slot_advance(%s, %s::pg_lsn)", [self.slot, format_lsn(lsn)]
            )

    def unload(self, name: str) -> Unload:
        """The rows of the table `schema.table` as of one log position. Call prepare() first: the
        source's slot must exist before the unload's position, or the changes committed between
        the two would be lost to it.

        A temporary slot, made on a replication connection, exports the snapshot of its
        consistent point; a second connection reads the table in that snapshot. Then a logical
        message commits a transaction past the unload, which the source's slot delivers: once
        Capture has read it, the set's synchpoint is past the unload even on an idle source."""
        from psycopg.types.string import TextLoader

        schema, table = split_name(name)
        replication = connect(self.dsn, replication=True)
        with replication, self._connect() as reader, _answers(f"unloading {schema}.{table}", {
            "42501": f"GRANT SELECT ON {schema}.{table} TO {reader.info.user}",
            "53400": "raise max_replication_slots or max_wal_senders in postgresql.conf and restart "
                     "the server: the unload needs a slot and a sender of its own for a moment",
        }):  # fmt: skip
            oid = describe_table(reader, schema, table).oid
            slot = f"{self.slot}_unload_{replication.info.backend_pid}"
            consistent_point, snapshot = replication.execute(
                f"CREATE_REPLICATION_SLOT {slot} TEMPORARY LOGICAL pgoutput (SNAPSHOT 'export')"
            ).fetchone()[1:3]
            # Generated columns left out, as the log leaves them out of a change.
            described = reader.execute(
                "select attname, atttypid from pg_attribute where attrelid = %s "
                "and attnum > 0 and not attisdropped and attgenerated = '' order by attnum",
                [oid],
            ).fetchall()
            columns = [column for column, _ in described]
            listed = ", ".join(_quote(column) for column in columns)
            rows: list[str] = []
            with reader.transaction():
                reader.execute("set transaction isolation level repeatable read")
                reader.execute(f"set transaction snapshot '{snapshot}'")
                with reader.cursor(name="lakerep_unload") as cursor:
                    # Each value as its type's output function writes it, as pgoutput sends a change
                    # (a cast to text would differ: it drops a char(n)'s padding).
                    for _, type_oid in described:
                        cursor.adapters.register_loader(type_oid, TextLoader)
                    cursor.execute(f"select {listed} from {_quote(schema)}.{_quote(table)}")
                    for values in cursor:
                        rows.append(json.dumps(dict(zip(columns, values, strict=True))))
            reader.execute(
                "select pg_logical_emit_message(true, 'lakerep', %s)",
                [f"unloaded {schema}.{table} at {consistent_point}"],
            )
        return Unload(unload_position(parse_lsn(consistent_point)), rows)


def unload_position(consistent_point: int) -> str:
    """The log position of an unload read at a slot's consistent point: the last position before
    it. A transaction whose commit record starts at the consistent point or later is not in the
    snapshot (the slot delivers it), one that commits before it is; Apply discards changes
    committed at or before a refresh's start, so the start must sort below the commit position of
    a transaction committing exactly at the consistent point (its LSN and 0000)."""
    return f"{consistent_point - 1:016X}FFFF"


def not_landed(records: Iterable[dict], highest_landed_commit: str | None) -> Iterator[dict]:
    """The records of the transactions that commit above highest_landed_commit (a position):
    what a read after a crash between landing and confirming brings again is left out."""
    return (
        record
        for record in records
        if highest_landed_commit is None or record["uow_id"] > highest_landed_commit
    )


class Described(NamedTuple):
    oid: int
    identity: str  # pg_class.relreplident: d default, n nothing, f full, i index
    has_primary_key: bool
    partitioned: bool


def describe_table(connection, schema: str, table: str) -> Described:
    """A table as the catalog describes it; a SourceError when there is no such table."""
    found = connection.execute(
        "select c.oid, c.relreplident, "
        "exists(select 1 from pg_index i where i.indrelid = c.oid and i.indisprimary), c.relkind = 'p' "
        "from pg_class c join pg_namespace n on n.oid = c.relnamespace "
        "where n.nspname = %s and c.relname = %s and c.relkind in ('r', 'p')",
        [schema, table],
    ).fetchone()
    if found is None:
        raise SourceError(f"the source has no table {schema}.{table}")
    return Described(*found)


def identity_columns(connection, oid: int, identity: str) -> tuple[str, ...] | None:
    """The columns a deleted row's change carries (of its primary key under the default replica
    identity, of its index under USING INDEX), or None under FULL: every column."""
    if identity == "f":
        return None
    chosen = "i.indisprimary" if identity == "d" else "i.indisreplident"
    return tuple(row[0] for row in connection.execute(
        "select a.attname from pg_index i join pg_attribute a "
        "on a.attrelid = i.indrelid and a.attnum = any(i.indkey) "
        f"where i.indrelid = %s and {chosen} order by array_position(i.indkey::int2[], a.attnum)",
        [oid],
    ).fetchall())  # fmt: skip


def generated_columns(connection, oid: int) -> set[str]:
    """The table's generated columns: pgoutput leaves them out of every change."""
    return {row[0] for row in connection.execute(
        "select attname from pg_attribute where attrelid = %s and attnum > 0 and not attisdropped "
        "and attgenerated <> ''",
        [oid],
    ).fetchall()}  # fmt: skip


def connect(dsn: str, *, replication: bool = False):
    """A connection to the source in autocommit mode (with replication, one that takes the
    replication protocol's commands), or a SourceError saying why not. Text comes as UTF-8
    whatever the database's encoding (pgoutput's values too); a server below 15 is refused."""
    import psycopg

    options = {"replication": "database"} if replication else {}
    try:
        connection = psycopg.connect(dsn, autocommit=True, client_encoding="UTF8", **options)
    except psycopg.OperationalError as error:
        what = "open a replication connection to" if replication else "connect to"
        raise SourceError(f"cannot {what} the PostgreSQL source: {error}".strip()) from error
    version = connection.info.server_version
    if version < MIN_SERVER_VERSION:
        connection.close()
        raise SourceError(
            f"the PostgreSQL source runs version {version // 10000}.{version % 10000}, and lakerep "
            f"reads {MIN_SERVER_VERSION // 10000} or later: upgrade the server"
        )
    return connection


@contextlib.contextmanager
def _answers(doing: str, what_to_do: Mapping[str, str] | None = None) -> Iterator[None]:
    """The server's errors while `doing` as one SourceError line: what it said, and what to do
    (by SQLSTATE); a server that stopped answering has confirmed nothing, so a later run reads
    the same changes again."""
    import psycopg

    try:
        yield
    except psycopg.Error as error:
        said = (error.diag.message_primary or str(error) or type(error).__name__).strip().splitlines()[0]
        advice = (what_to_do or {}).get(error.sqlstate or "")
        if advice is None and isinstance(error, psycopg.OperationalError):
            advice = "nothing past the lake's position was confirmed: run again once the server answers"
        raise SourceError(
            f"the PostgreSQL source failed while {doing}: {said}" + (f"; {advice}" if advice else "")
        ) from error


def split_name(name: str) -> tuple[str, str]:
    schema, _, table = name.rpartition(".")
    if not schema or not table:
        raise SourceError(f"a source table is named schema.table, not {name!r}")
    return schema, table


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'
