"""A source database's history as plain Python, the Debezium events its PostgreSQL connector
would write for it, and what lakerep must make of them: an independent oracle.

The events are written field for field as the Debezium PostgreSQL connector documentation shows
them (https://debezium.io/documentation/reference/stable/connectors/postgresql.html: "Data change
events" — create, update, primary key update, delete, truncate events; "Transaction metadata";
"Snapshots"; the source metadata fields ts_ms, ts_us, txId, lsn, sequence), one JSON value per
line as Kafka Connect's FileStreamSink writes it with the StringConverter (`null` for a
tombstone). The oracle computes the expected log records from the history itself, not from the
events: a change's position is its WAL record's LSN and its row within that record, a commit's
is the LSN at the end of its commit record minus one (ADR 0009), and the replica is the history
replayed by key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

OWNER, TABLE = "SALES", "CUSTOMERS"  # the demo's registration; the server's names are upper case
KEY = "customer_id"
EPOCH_MICROS = 1_767_225_600_000_000  # 2026-01-01 00:00:00 UTC


def row(customer_id: str, name: str, email: str | None, credit_limit: str | None) -> dict:
    # decimal.handling.mode=string: numerics as text; the temporal columns stay null (ADR 0009)
    return {
        "customer_id": customer_id,
        "name": name,
        "email": email,
        "credit_limit": credit_limit,
        "created_on": None,
        "updated_at": None,
    }


@dataclass
class Change:
    """One row change as the server logged it: kind insert, update, key_update, delete or
    truncate; lsn of its WAL record; before as the replica identity gives it."""

    kind: str
    lsn: int
    before: dict | None = None
    after: dict | None = None
    table: tuple[str, str] = (OWNER, TABLE)


@dataclass
class Transaction:
    xid: int
    first_lsn: int
    end_lsn: int  # end of the commit record: what Debezium's END event id carries
    commit_second: int
    changes: list[Change] = field(default_factory=list)
    rolled_back: bool = False

    @property
    def commit_micros(self) -> int:
        return EPOCH_MICROS + self.commit_second * 1_000_000 + 123_456


@dataclass
class Snapshot:
    """The connector's initial snapshot: the tables' rows, all read at one LSN."""

    lsn: int
    xid: int
    tables: dict[tuple[str, str], list[dict]]

    @property
    def rows(self) -> list[dict]:
        return self.tables.get((OWNER, TABLE), [])


# Every table of the member set APPLY1.SALES, so the set can start from this snapshot: the first
# table's one read is marked `first` (whole only once `last` lands), the second's
# `last_in_data_collection`.
SALES_SNAPSHOT = Snapshot(lsn=0x16E00000, xid=550, tables={
    ("SALES", "ORDERS"): [{"order_id": 1, "customer_id": "C0", "order_date": None, "status": "NEW",
                           "total": "5.00", "note": None}],
    ("SALES", "ORDER_LINES"): [{"order_id": 1, "line_no": 1, "product_code": "P-1", "quantity": 2,
                                "unit_price": "2.50", "shipped_at": None}],
    (OWNER, TABLE): [row("C0", "Zed", "z@x", "5.00"), row("C5", "Eve", None, "0.00")],
})  # fmt: skip


def position(lsn: int, row_number: int = 0) -> str:
    return f"{lsn:016X}{row_number:04X}"


def log_time(micros: int) -> str:
    return (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)).strftime(
        "%Y-%m-%d %H:%M:%S.%f"
    )


# ---- the events --------------------------------------------------------------------------


def _source(transaction_or_snapshot, lsn: int, table: tuple[str, str], snapshot: str, micros: int) -> dict:
    return {
        "version": "2.7.3.Final",
        "connector": "postgresql",
        "name": "PostgreSQL_server",
        "ts_ms": micros // 1000,
        "ts_us": micros,
        "ts_ns": micros * 1000,
        "snapshot": snapshot,
        "db": "postgres",
        "sequence": json.dumps([None, str(lsn)]),
        "schema": table[0],
        "table": table[1],
        "txId": transaction_or_snapshot.xid,
        "lsn": lsn,
        "xmin": None,
    }


def _envelope(payload: dict, wrapped: bool) -> str:
    """The event value as JsonConverter writes it: with schemas.enable=true a schema/payload
    wrapper (the schema abridged here: lakerep reads the payload), else the bare payload."""
    if wrapped:
        schema = {"type": "struct", "optional": False, "name": "PostgreSQL_server.SALES.CUSTOMERS.Envelope"}
        return json.dumps({"schema": schema, "payload": payload})
    return json.dumps(payload)


def transaction_events(transaction: Transaction, wrapped: bool = False, with_end: bool = True) -> list[str]:
    """BEGIN, the change events (a key update is a delete, a tombstone and a create at one LSN;
    a delete is followed by its tombstone), END. A rolled-back transaction: nothing."""
    if transaction.rolled_back:
        return []
    micros = transaction.commit_micros
    lines = [
        json.dumps(
            {
                "status": "BEGIN",
                "id": f"{transaction.xid}:{transaction.first_lsn}",
                "ts_ms": micros // 1000,
                "event_count": None,
                "data_collections": None,
            }
        )
    ]
    order = 0
    counts: dict[str, int] = {}

    def event(op: str, change: Change, before, after) -> str:
        nonlocal order
        order += 1
        collection = ".".join(change.table)
        counts[collection] = counts.get(collection, 0) + 1
        payload = {
            "before": before,
            "after": after,
            "source": _source(transaction, change.lsn, change.table, "false", micros),
            "op": op,
            "ts_ms": micros // 1000 + 7,
            "ts_us": micros + 7000,
            "ts_ns": (micros + 7000) * 1000,
            "transaction": {
                "id": f"{transaction.xid}:{change.lsn}",
                "total_order": order,
                "data_collection_order": counts[collection],
            },
        }
        return _envelope(payload, wrapped)

    for change in transaction.changes:
        if change.kind == "insert":
            lines.append(event("c", change, None, change.after))
        elif change.kind == "update":
            lines.append(event("u", change, change.before, change.after))
        elif change.kind == "key_update":
            lines += [event("d", change, change.before, None), "null", event("c", change, None, change.after)]
        elif change.kind == "delete":
            lines += [event("d", change, change.before, None), "null"]
        elif change.kind == "truncate":
            lines.append(event("t", change, None, None))
    if with_end:
        lines.append(end_event(transaction, order, counts))
    return lines


def end_event(transaction: Transaction, event_count: int | None = None, counts: dict | None = None) -> str:
    if event_count is None:
        event_count = sum(2 if c.kind == "key_update" else 1 for c in transaction.changes)
        counts = {f"{OWNER}.{TABLE}": event_count}
    return json.dumps(
        {
            "status": "END",
            "id": f"{transaction.xid}:{transaction.end_lsn}",
            "ts_ms": transaction.commit_micros // 1000,
            "event_count": event_count,
            "data_collections": [
                {"data_collection": name, "event_count": count} for name, count in (counts or {}).items()
            ],
        }
    )


def snapshot_events(snapshot: Snapshot, wrapped: bool = True) -> list[str]:
    """Reads (op r), table after table, with no transaction block, marked as the connector marks
    them (RelationalSnapshotChangeEventSource: last of all, else first of all, else last of its
    table, else first of its table, else true)."""
    reads = [(table, image) for table, images in snapshot.tables.items() for image in images]
    lines = []
    for number, (table, image) in enumerate(reads):
        of_table = [n for n, (t, _) in enumerate(reads) if t == table]
        if number == len(reads) - 1:
            marker = "last"
        elif number == 0:
            marker = "first"
        elif number == of_table[-1]:
            marker = "last_in_data_collection"
        elif number == of_table[0]:
            marker = "first_in_data_collection"
        else:
            marker = "true"
        payload = {
            "before": None,
            "after": image,
            "source": _source(snapshot, snapshot.lsn, table, marker, EPOCH_MICROS),
            "op": "r",
            "ts_ms": EPOCH_MICROS // 1000,
            "transaction": None,
        }
        lines.append(_envelope(payload, wrapped))
    return lines


# ---- the oracle --------------------------------------------------------------------------


def expected_log_records(transactions: list[Transaction]) -> list[dict]:
    """The log records lakerep must stage for the committed transactions (every table's)."""
    records = []
    for transaction in transactions:
        if not transaction.rolled_back:
            records += _transaction_records(transaction)
    return records


def _transaction_records(transaction: Transaction) -> list[dict]:
    uow = position(transaction.end_lsn - 1)
    common = {
        "uow_id": uow,
        "auth_token": str(transaction.xid),
        "log_timestamp": log_time(transaction.commit_micros),
        "source_owner": None,
        "source_table": None,
        "before_image": None,
        "after_image": None,
    }
    rows_at: dict[int, int] = {}  # rows numbered within their WAL record
    records = []
    for change in transaction.changes:
        kinds = {
            "insert": ["I"],
            "update": ["U"],
            "key_update": ["D", "I"],
            "delete": ["D"],
            "truncate": [None],
        }
        for kind in kinds[change.kind]:
            number = rows_at.get(change.lsn, 0)
            rows_at[change.lsn] = number + 1
            if kind is None:
                continue  # a truncate: quarantined, never staged
            records.append(
                {
                    **common,
                    "log_position": position(change.lsn, number),
                    "record_type": kind,
                    "source_owner": change.table[0],
                    "source_table": change.table[1],
                    "before_image": change.before if kind in {"U", "D"} else None,
                    "after_image": change.after if kind in {"I", "U"} else None,
                }
            )
    return [*records, {**common, "log_position": uow, "record_type": "C"}]


def replica(snapshot: Snapshot, transactions: list[Transaction]) -> dict[str, dict]:
    """SALES.CUSTOMERS after the committed transactions, replayed by key from the snapshot."""
    rows = {image[KEY]: dict(image) for image in snapshot.rows}
    for transaction in transactions:
        if transaction.rolled_back:
            continue
        for change in transaction.changes:
            if change.table != (OWNER, TABLE):
                continue
            if change.kind in {"update", "key_update", "delete"} and change.before is not None:
                rows.pop(change.before[KEY], None)
            if change.kind in {"insert", "update", "key_update"}:
                rows[change.after[KEY]] = dict(change.after)
    return rows


def changed_keys(transactions: list[Transaction]) -> tuple[set[str], set[str]]:
    """(keys whose last change leaves a row, keys whose last change removes it) in SALES.CUSTOMERS."""
    last: dict[str, str] = {}
    for transaction in transactions:
        if transaction.rolled_back:
            continue
        for change in transaction.changes:
            if change.table != (OWNER, TABLE):
                continue
            if change.kind in {"key_update", "delete"}:
                last[change.before[KEY]] = "gone"
            if change.kind in {"insert", "update", "key_update"}:
                last[change.after[KEY]] = "row"
    return {k for k, v in last.items() if v == "row"}, {k for k, v in last.items() if v == "gone"}
