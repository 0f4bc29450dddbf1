"""The positions the Debezium mapping gives a transaction's changes, and its auth_token, are the
ones lakerep's own PostgreSQL source gives the same transaction (ADR 0009), checked against
`lakerep.sources.pgoutput.Decoder` fed the pgoutput messages the server would send for it
(https://www.postgresql.org/docs/15/protocol-logicalrep-message-formats.html). The commit is
where they differ, as the ADR says: pgoutput's commit message carries the commit record's LSN,
Debezium's END only the LSN at its end; both sort the same against every change. No Spark."""

from __future__ import annotations

import struct

from debezium_scenario import KEY, OWNER, TABLE, Change, Transaction, expected_log_records, row

from lakerep.sources.pgoutput import Decoder

COLUMNS = tuple(row("x", "x", None, None))
RELATION_ID = 16384
# A multi-row transaction (two rows of one WAL record), an update without a before image, a
# delete with the key only.
HISTORY = [
    Transaction(556, 0x16E00100, 0x16E00398, 1, [
        Change("insert", 0x16E00128, after=row("C1", "Ann", "ann@x", "100.50")),
        Change("insert", 0x16E00200, after=row("C2", "Bob", None, "20.00")),
        Change("insert", 0x16E00200, after=row("C3", "Cy", "cy@x", "0.00")),
    ]),
    Transaction(558, 0x16E01000, 0x16E01090, 3, [
        Change("update", 0x16E01028, before=None, after=row("C2", "Bob", "bob@x", "20.00")),
    ]),
    Transaction(561, 0x16E04000, 0x16E04068, 6, [Change("delete", 0x16E04028, before={KEY: "C1"})]),
]  # fmt: skip
COMMIT_RECORD_BYTES = 0x20  # the commit record's length: its LSN is its end less this


def test_changes_have_the_positions_and_transaction_ids_pgoutput_gives_them():
    decoder = Decoder()
    pgoutput_records = []
    for transaction in HISTORY:
        for lsn, message in pgoutput_messages(transaction):
            pgoutput_records += decoder.feed(lsn, message)
    debezium_records = expected_log_records(HISTORY)

    def changes(records):
        return [
            (r["log_position"], r["record_type"], r["auth_token"], r["source_owner"], r["source_table"])
            for r in records
            if r["record_type"] != "C"
        ]

    assert changes(debezium_records) == changes(pgoutput_records)
    pg_commits = [r["log_position"] for r in pgoutput_records if r["record_type"] == "C"]
    debezium_commits = [r["log_position"] for r in debezium_records if r["record_type"] == "C"]
    assert pg_commits == [f"{t.end_lsn - COMMIT_RECORD_BYTES:016X}0000" for t in HISTORY]
    assert debezium_commits == [f"{t.end_lsn - 1:016X}0000" for t in HISTORY]
    for records in (pgoutput_records, debezium_records):  # every commit above its changes
        for commit in (r for r in records if r["record_type"] == "C"):
            own = [r["log_position"] for r in records if r["uow_id"] == commit["uow_id"] and r is not commit]
            assert all(position < commit["log_position"] for position in own)
    order = sorted(pgoutput_records + debezium_records, key=lambda r: r["log_position"])
    assert [r["auth_token"] for r in order if r["record_type"] == "C"] == [
        str(t.xid) for t in HISTORY for _ in range(2)
    ]  # both commits of a transaction between the same changes of the others


def pgoutput_messages(transaction: Transaction) -> list[tuple[int, bytes]]:
    """The slot's (lsn, message) rows of a transaction, protocol version 1."""
    commit_lsn = transaction.end_lsn - COMMIT_RECORD_BYTES
    micros = transaction.commit_micros - 946_684_800_000_000  # PostgreSQL's epoch is 2000-01-01
    messages = [
        (transaction.first_lsn, b"B" + struct.pack(">qqi", commit_lsn, micros, transaction.xid)),
        (transaction.first_lsn, relation()),
    ]
    for change in transaction.changes:
        body = struct.pack(">i", RELATION_ID)
        if change.kind == "insert":
            messages.append((change.lsn, b"I" + body + b"N" + tuple_data(change.after)))
        elif change.kind == "update":
            messages.append((change.lsn, b"U" + body + b"N" + tuple_data(change.after)))
        elif change.kind == "delete":
            messages.append((change.lsn, b"D" + body + b"K" + tuple_data(change.before)))
    messages.append(
        (transaction.end_lsn, b"C" + struct.pack(">bqqq", 0, commit_lsn, transaction.end_lsn, micros))
    )
    return messages


def relation() -> bytes:
    columns = b"".join(
        struct.pack(">b", 1 if name == KEY else 0) + name.encode() + b"\0" + struct.pack(">ii", 25, -1)
        for name in COLUMNS
    )
    return (
        b"R"
        + struct.pack(">i", RELATION_ID)
        + f"{OWNER}\0{TABLE}\0".encode()
        + b"d"
        + struct.pack(">h", len(COLUMNS))
        + columns
    )


def tuple_data(image: dict) -> bytes:
    """A row of every column: text, or null (for a key-only image, every other column)."""
    parts = []
    for name in COLUMNS:
        value = image.get(name)
        parts.append(
            b"n" if value is None else b"t" + struct.pack(">i", len(value.encode())) + value.encode()
        )
    return struct.pack(">h", len(COLUMNS)) + b"".join(parts)
