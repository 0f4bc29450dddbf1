"""PostgreSQL's built-in logical decoding output (pgoutput, protocol version 1) as log records of
the landing contract (SPEC §2.1).

pgoutput delivers whole transactions at commit, in commit order: a begin, the row changes, a
commit. Each change becomes one record and the commit one more, so every record of a
transaction lands together. Positions are the change's LSN as 16 hex digits followed by 4 that
number the rows of one WAL record (a COPY or multi-row insert writes several rows in one), so
positions are unique and sort in log order. The UOW id is the commit's LSN, which never repeats
(transaction ids wrap around); the transaction id itself goes into auth_token, for a DBA to find.
Every record of a transaction carries its commit time (pgoutput gives no other), in UTC.

Images are JSON objects of column name to PostgreSQL's text form of the value (staging types it
by the registration). A before image is what the server sends: under the default replica
identity, none for an update that keeps its key, the key columns only for a key update or a
delete; under REPLICA IDENTITY FULL, the whole row. An update that leaves a TOASTed value
unchanged does not send it: the after image takes it from a full before image, or says it was not
sent (UNSENT_VALUE, Debezium's placeholder), and staging fills it from the lake.

Message layout: https://www.postgresql.org/docs/15/protocol-logicalrep-message-formats.html
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

POSTGRES_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
ROWS_PER_WAL_RECORD = 0x10000  # the 4 low hex digits of a position
# An image's value for a column the server did not send (macros/staging/lakerep_unsent_value.sql)
UNSENT_VALUE = "__debezium_unavailable_value"


class DecodingError(ValueError):
    """A message lakerep cannot turn into log records; the slot stays where it is."""


@dataclass(frozen=True, eq=False)  # one per Relation message: a new one is a shape to check
class Relation:
    schema: str
    table: str
    columns: tuple[str, ...]
    key_columns: tuple[str, ...]  # the replica identity's (every column's under FULL)
    # each column's type oid and modifier, for format_type: the schema history compares shapes
    types: tuple[tuple[int, int], ...] = ()


@dataclass
class _Transaction:
    commit_lsn: int
    commit_time: datetime
    xid: int
    # The rows of one WAL record (a COPY's multi-insert) share its LSN and come one after another
    # (a transaction's changes arrive in WAL order): the row number counts them at the last LSN
    # only, so a transaction of a million rows keeps two numbers, not a million.
    last_lsn: int = -1
    rows_at_last_lsn: int = 0


class Decoder:
    """Turns pgoutput messages, in the order the slot gives them, into log records.

    feed(lsn, message) returns the records a message makes: a change's record as it arrives (the
    BEGIN gave its transaction's commit position and time), the commit record at the commit, which
    also sets end_lsn, the LSN just past that commit: where the slot may be confirmed once the
    records have landed. A transaction of a million rows is never held whole. A TRUNCATE makes no
    record: its tables' names go to truncated (schema.table, each once, in the order met).
    last_relation is the relation (as its latest Relation message described it) of the last
    change returned: the schema history compares it with the lake's shape of the table.
    """

    def __init__(self) -> None:
        self._relations: dict[int, Relation] = {}
        self._transaction: _Transaction | None = None
        self.end_lsn: int | None = None
        self.truncated: list[str] = []
        self.last_relation: Relation | None = None

    def feed(self, lsn: int, message: bytes) -> list[dict]:
        reader = _Reader(message)
        kind = reader.byte()
        if kind == "B":
            final_lsn, timestamp = reader.int64(), reader.int64()
            xid = reader.int32() & 0xFFFFFFFF  # unsigned on the wire
            self._transaction = _Transaction(final_lsn, _time(timestamp), xid)
            return []
        if kind == "R":
            self._relation(reader)
            return []
        if kind in {"Y", "O", "M"}:  # a type's name, the origin, a logical message: nothing to land
            return []
        transaction = self._transaction
        if transaction is None:
            raise DecodingError(f"message {kind!r} at {format_lsn(lsn)} outside a transaction")
        if kind in {"I", "U", "D"}:
            return [self._change(kind, lsn, reader, transaction)]
        if kind == "T":  # no row change: the reader refreshes the tables' members (truncated)
            count = reader.int32()
            reader.int8()  # options: CASCADE, RESTART IDENTITY
            for relation in [self._known(reader.int32(), lsn) for _ in range(count)]:
                name = f"{relation.schema}.{relation.table}"
                if name not in self.truncated:
                    self.truncated.append(name)
            return []
        if kind == "C":
            reader.byte()  # flags, unused
            commit_lsn, end_lsn = reader.int64(), reader.int64()
            self._transaction = None
            self.end_lsn = end_lsn
            return [self._commit(commit_lsn, transaction)]
        raise DecodingError(f"unknown pgoutput message {kind!r} at {format_lsn(lsn)}")

    def _relation(self, reader: _Reader) -> None:
        relation_id = reader.int32()
        schema, table = reader.string(), reader.string()
        reader.byte()  # replica identity setting, read from the catalog when the source starts
        columns, keys, types = [], [], []
        for _ in range(reader.int16()):
            flags, name = reader.int8(), reader.string()
            types.append((reader.int32() & 0xFFFFFFFF, reader.int32()))  # an oid is unsigned
            columns.append(name)
            if flags & 1:
                keys.append(name)
        self._relations[relation_id] = Relation(schema, table, tuple(columns), tuple(keys), tuple(types))

    def _change(self, kind: str, lsn: int, reader: _Reader, transaction: _Transaction) -> dict:
        relation = self._known(reader.int32(), lsn)
        self.last_relation = relation
        before = after = None
        marker = reader.byte()
        if marker in {"K", "O"}:
            before = self._image(relation, reader, only_keys=marker == "K", where=lsn)
            marker = reader.byte() if kind == "U" else None
        if kind in {"I", "U"}:
            if marker != "N":
                raise DecodingError(
                    f"{kind} of {relation.schema}.{relation.table} at {format_lsn(lsn)} without a new row"
                )
            after = self._image(relation, reader, only_keys=False, where=lsn, unchanged_from=before)
        if lsn < transaction.last_lsn:
            raise DecodingError(
                f"a change at {format_lsn(lsn)} after one at {format_lsn(transaction.last_lsn)}: "
                "not in WAL order"
            )
        row = transaction.rows_at_last_lsn if lsn == transaction.last_lsn else 0
        if row >= ROWS_PER_WAL_RECORD:
            raise DecodingError(
                f"more than {ROWS_PER_WAL_RECORD} rows in the WAL record at {format_lsn(lsn)}"
            )
        transaction.last_lsn, transaction.rows_at_last_lsn = lsn, row + 1
        return _record(
            transaction, log_position=f"{lsn:016X}{row:04X}", record_type=kind,
            source_owner=relation.schema, source_table=relation.table,
            before_image=None if before is None else json.dumps(before),
            after_image=None if after is None else json.dumps(after),
        )  # fmt: skip

    def _image(self, relation: Relation, reader: _Reader, *, only_keys: bool, where: int,
               unchanged_from: dict | None = None) -> dict:  # fmt: skip
        count = reader.int16()
        if count != len(relation.columns):
            raise DecodingError(
                f"{relation.schema}.{relation.table} at {format_lsn(where)}: a row of {count} columns, "
                f"the relation has {len(relation.columns)}"
            )
        image = {}
        for name in relation.columns:
            kind = reader.byte()
            if kind == "n":
                value = None
            elif kind == "t":
                value = reader.bytes(reader.int32()).decode("utf-8")
            elif kind == "u":
                # A TOASTed value the update did not change: the server sends it only in a full
                # old row (REPLICA IDENTITY FULL). Otherwise the image says it was not sent, and
                # staging fills it from the row's last image in the lake.
                value = UNSENT_VALUE if unchanged_from is None else unchanged_from.get(name, UNSENT_VALUE)
            else:
                raise DecodingError(f"column value kind {kind!r} at {format_lsn(where)}")
            if not only_keys or name in relation.key_columns:
                image[name] = value
        return image

    def _commit(self, commit_lsn: int, transaction: _Transaction) -> dict:
        return _record(transaction, log_position=f"{commit_lsn:016X}0000", record_type="C")

    def _known(self, relation_id: int, lsn: int) -> Relation:
        if relation_id not in self._relations:
            raise DecodingError(f"a change at {format_lsn(lsn)} of relation {relation_id}, never described")
        return self._relations[relation_id]


def _record(transaction: _Transaction, **fields) -> dict:
    return {
        "uow_id": f"{transaction.commit_lsn:016X}0000",
        "source_owner": None,
        "source_table": None,
        "log_timestamp": transaction.commit_time.strftime("%Y-%m-%d %H:%M:%S.%f"),
        "auth_id": None,
        "auth_token": str(transaction.xid),
        "before_image": None,
        "after_image": None,
        **fields,
    }


def _time(microseconds: int) -> datetime:
    return POSTGRES_EPOCH + timedelta(microseconds=microseconds)


def format_lsn(lsn: int) -> str:
    """PostgreSQL's own form of an LSN: two hex numbers around a slash."""
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


def parse_lsn(text: str) -> int:
    high, low = text.split("/")
    return (int(high, 16) << 32) | int(low, 16)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self._data = bytes(data)
        self._at = 0

    def _take(self, size: int) -> bytes:
        if self._at + size > len(self._data):
            raise DecodingError(f"a pgoutput message ended early: {self._data[:40]!r}")
        chunk = self._data[self._at : self._at + size]
        self._at += size
        return chunk

    def byte(self) -> str:
        return self._take(1).decode("ascii")

    def int8(self) -> int:
        return self._take(1)[0]

    def int16(self) -> int:
        return struct.unpack(">h", self._take(2))[0]

    def int32(self) -> int:
        return struct.unpack(">i", self._take(4))[0]

    def int64(self) -> int:
        return struct.unpack(">q", self._take(8))[0]

    def bytes(self, size: int) -> bytes:
        return self._take(size)

    def string(self) -> str:
        end = self._data.index(b"\0", self._at)
        text = self._data[self._at : end].decode("utf-8")
        self._at = end + 1
        return text
