"""A live PostgreSQL as a source (issue 23): the records read from its logical replication slot,
replayed in plain Python, equal the server's own tables; the slot moves only when confirmed;
an unload at one position plus the changes committed after it equals the server's table; what
the server cannot give (a wal_level, a privilege, a replica identity) is refused with a message
that says what to change; an unchanged TOASTed value comes from a full old row, or is marked not
sent; a truncate is read as the tables it emptied. No Spark here."""

from __future__ import annotations

import json

import psycopg
import pytest
from psycopg.types.string import TextLoader
from sources.postgresql_server import execute, postgresql_server, serving

from lakerep.sources.pgoutput import UNSENT_VALUE
from lakerep.sources.postgresql import PostgresqlSource, SourceError, not_landed

KEYS = {"orders": ("order_id",), "lines": ("order_id", "line_no"), "docs": ("doc_id",), "stock": ("sku",)}
SCHEMA = """
    create schema shop;
    create table shop.orders (order_id bigint primary key, status text, total numeric(10, 2),
                              ordered_at timestamptz, note text);
    create table shop.lines (order_id bigint, line_no int, qty int, primary key (order_id, line_no));
    create table shop.events (event_id int, message text);
    create table shop.docs (doc_id int primary key, title text, body text);
    create table shop.docs_full (doc_id int primary key, title text, body text);
    alter table shop.docs_full replica identity full;
    create table shop.stock (sku text primary key, on_hand int, counted_at timestamp, bin char(4));
    create table shop.big (id int primary key, v text);
    create role reader login;
"""


@pytest.fixture(scope="module")
def server():
    with serving(SCHEMA) as dsn:
        yield dsn


def replay(records: list[dict], table: str, rows: dict[tuple, dict] | None = None) -> dict[tuple, dict]:
    """The table as the records say it is (from `rows`, default empty): each change applied by
    key, in the order read."""
    rows = dict(rows or {})
    for record in records:
        if record["source_table"] != table:
            continue
        before, after = (json.loads(record[image]) if record[image] else None
                         for image in ("before_image", "after_image"))  # fmt: skip
        if record["record_type"] in {"U", "D"} and before is not None:
            rows.pop(tuple(before[key] for key in KEYS[table]))
        if record["record_type"] in {"I", "U"}:
            rows[tuple(after[key] for key in KEYS[table])] = after
    return rows


def server_rows(dsn: str, table: str) -> dict[tuple, dict]:
    """The server's rows, every value in its text form (its type's output function: the form
    pgoutput sends)."""
    with psycopg.connect(dsn) as connection, connection.cursor() as cursor:
        cursor.execute(f"select * from shop.{table} limit 0")
        for column in cursor.description:
            cursor.adapters.register_loader(column.type_code, TextLoader)
        columns = [column.name for column in cursor.description]
        found = cursor.execute(f"select * from shop.{table}").fetchall()
    return {tuple(row[columns.index(key)] for key in KEYS[table]): dict(zip(columns, row, strict=True))
            for row in found}  # fmt: skip


def test_the_records_read_replay_to_the_servers_tables(server):
    source = PostgresqlSource(server, ["shop.orders", "shop.lines"])
    source.prepare()
    execute(server,
            "insert into shop.orders values (1, 'NEW', 10.5, '2026-11-24 15:41:18.4537+00', 'it''s'), "
            "(2, 'NEW', 20, now(), null), (3, 'NEW', 30, now(), 'gone soon')",
            "insert into shop.lines values (1, 1, 5), (1, 2, 6)")  # fmt: skip
    execute(server, "update shop.orders set status = 'PAID' where order_id = 1")
    execute(server, "update shop.orders set order_id = 10 where order_id = 2")
    execute(server, "delete from shop.orders where order_id = 3")
    with psycopg.connect(server) as connection:
        connection.execute("insert into shop.orders values (99, 'ROLLED BACK', 0, now(), null)")
        connection.rollback()
    spanning = psycopg.connect(server)  # a transaction open across two reads
    spanning.execute("insert into shop.orders values (7, 'SLOW', 70, now(), null)")
    with (
        psycopg.connect(server) as connection,
        connection.cursor() as cursor,
        cursor.copy("copy shop.lines from stdin") as copy,
    ):
        for row in [(2, 1, 1), (2, 2, 2), (2, 3, 3)]:
            copy.write_row(row)

    first = source.read()
    assert replay(first.records, "orders") == server_rows(server, "orders")
    assert replay(first.records, "lines") == server_rows(server, "lines")
    by_type = {kind: [r for r in first.records if r["record_type"] == kind] for kind in "IUDC"}
    assert len(by_type["C"]) == 5 and len(by_type["D"]) == 1 and len(by_type["U"]) == 2
    update, key_update = by_type["U"]
    assert update["before_image"] is None  # the default replica identity: the key stayed
    assert json.loads(key_update["before_image"]) == {"order_id": "2"}  # the old key only
    assert json.loads(by_type["D"][0]["before_image"]) == {"order_id": "3"}
    copied = [r["log_position"] for r in first.records if r["source_table"] == "lines"][2:]
    assert len({position[:16] for position in copied}) == 1, "one WAL record for the COPY's rows"
    assert [position[16:] for position in copied] == ["0000", "0001", "0002"]
    positions = [record["log_position"] for record in first.records]
    assert all(len(position) == 20 for position in positions) and positions == sorted(positions)
    for record in first.records:
        commit = next(c for c in by_type["C"] if c["uow_id"] == record["uow_id"])
        assert record["log_position"] <= commit["log_position"]
    assert json.loads(by_type["I"][0]["after_image"])["ordered_at"] == "2026-11-24 15:41:18.4537+00"

    # The slot stays until confirmed: the same read again, then nothing once confirmed.
    assert source.read() == first
    source.confirm(first.confirm_lsn)
    assert source.read().records == []

    spanning.commit()
    spanning.close()
    second = source.read()
    inserted = [r for r in second.records if r["record_type"] == "I"]
    assert [json.loads(r["after_image"])["order_id"] for r in inserted] == ["7"]
    # logged before the COPY, committed after it: landing order is not log order
    assert inserted[0]["log_position"] < max(positions)
    assert replay(first.records + second.records, "orders") == server_rows(server, "orders")
    # a crash between landing and confirming reads the second transaction again
    highest_landed = max(r["log_position"] for r in first.records if r["record_type"] == "C")
    assert list(not_landed(first.records + second.records, highest_landed)) == second.records
    source.confirm(second.confirm_lsn)

    execute(server, "insert into shop.orders values (8, 'A', 1, now(), null)")
    execute(server, "insert into shop.orders values (9, 'B', 1, now(), null)")
    bounded = source.read(max_changes=1)
    assert [r["record_type"] for r in bounded.records] == ["I", "C"], "one whole transaction"
    assert len(source.read().records) == 4


def test_an_unload_and_the_changes_committed_after_it_make_the_table(server):
    source = PostgresqlSource(server, ["shop.stock"], slot="lakerep_stock", publication="lakerep_stock")
    source.prepare()
    empty = source.unload("shop.stock")
    assert empty.rows == []
    execute(
        server, "insert into shop.stock values ('A', 1, '2026-11-26 10:00:00.5', 'x'), ('B', 2, null, null)"
    )
    execute(server, "update shop.stock set on_hand = 3 where sku = 'A'")
    unload = source.unload("shop.stock")
    execute(
        server,
        "update shop.stock set on_hand = 4 where sku = 'B'",
        "insert into shop.stock values ('C', 5, null, 'y')",
    )
    execute(server, "delete from shop.stock where sku = 'A'")

    assert len(unload.position) == 20 and unload.position > empty.position
    unloaded = {(row["sku"],): row for row in map(json.loads, unload.rows)}
    assert unloaded == {
        ("A",): {"sku": "A", "on_hand": "3", "counted_at": "2026-11-26 10:00:00.5", "bin": "x   "},
        ("B",): {"sku": "B", "on_hand": "2", "counted_at": None, "bin": None},
    }
    records = source.read().records
    # each unload commits a transaction without row changes past its position (Capture's
    # synchpoint reaches the unload on an idle source)
    changed = {record["uow_id"] for record in records if record["record_type"] != "C"}
    unloads_own = [r["uow_id"] for r in records if r["record_type"] == "C" and r["uow_id"] not in changed]
    assert len(unloads_own) == 2
    assert empty.position < unloads_own[0] < unload.position < unloads_own[1]
    after = [record for record in records if record["uow_id"] > unload.position]
    assert replay(after, "stock", unloaded) == server_rows(server, "stock")
    before = [record for record in records if record["uow_id"] <= unload.position]
    assert replay(before, "stock") == unloaded


def test_an_unchanged_toasted_value_comes_from_the_full_identity_or_is_marked_not_sent(server):
    body = "".join(f"{n:08x}" for n in range(4000))  # incompressible: stored out of line
    full = PostgresqlSource(server, ["shop.docs_full"], slot="lakerep_full", publication="lakerep_full")
    full.prepare()
    execute(server, f"insert into shop.docs_full values (1, 'draft', '{body}')")
    execute(server, "update shop.docs_full set title = 'final' where doc_id = 1")
    after = json.loads(full.read().records[-2]["after_image"])
    assert after == {"doc_id": "1", "title": "final", "body": body}

    default = PostgresqlSource(server, ["shop.docs"], slot="lakerep_docs", publication="lakerep_docs")
    default.prepare()
    execute(server, f"insert into shop.docs values (1, 'draft', '{body}')")
    execute(server, "update shop.docs set title = 'final' where doc_id = 1")
    after = json.loads(default.read().records[-2]["after_image"])
    assert after == {"doc_id": "1", "title": "final", "body": UNSENT_VALUE}  # staging fills it


def test_a_truncate_is_read_as_the_tables_it_emptied(server):
    source = PostgresqlSource(server, ["shop.lines"], slot="lakerep_truncate", publication="lakerep_truncate")
    source.prepare()
    execute(server, "truncate shop.lines")
    read = source.read()
    assert read.truncated == ("shop.lines",)
    assert [record["record_type"] for record in read.records] == ["C"]  # no row change: its commit


@pytest.mark.parametrize(
    ("tables", "user", "message"),
    [
        (["shop.events"], "lakerep", r"shop\.events has no replica identity.*REPLICA IDENTITY FULL"),
        (["shop.nothing"], "lakerep", r"no table shop\.nothing"),
        (["shop.orders"], "reader", r"user reader may not read a replication slot: ALTER ROLE reader REPL"),
    ],
)
def test_a_source_the_server_cannot_serve_is_refused_with_what_to_change(server, tables, user, message):
    source = PostgresqlSource(server.replace("lakerep@", f"{user}@"), tables, slot="lakerep_refused")
    with pytest.raises(SourceError, match=message):
        source.prepare()


def test_a_server_without_logical_decoding_is_refused():
    with (
        postgresql_server(wal_level="replica") as dsn,
        pytest.raises(SourceError, match=r"wal_level is replica.*wal_level = logical"),
    ):
        PostgresqlSource(dsn, ["public.anything"]).prepare()


def test_an_unreachable_server_is_refused_with_the_reason():
    with pytest.raises(SourceError, match="cannot connect to the PostgreSQL source"):
        PostgresqlSource("postgresql://nobody@127.0.0.1:1/none", ["a.b"]).prepare()


def test_a_transaction_id_past_two_to_the_31_is_unsigned():
    import struct

    from lakerep.sources.pgoutput import Decoder

    decoder = Decoder()
    assert decoder.feed(0x100, b"B" + struct.pack(">qqI", 0x200, 0, 0xFFFFFFF0)) == []
    (commit,) = decoder.feed(0x200, b"C" + struct.pack(">bqqq", 0, 0x200, 0x228, 0))
    assert commit["auth_token"] == str(0xFFFFFFF0) and commit["uow_id"] == f"{0x200:016X}0000"


def test_the_slot_moves_past_transactions_of_tables_not_registered(server):
    """A busy server whose registered tables stay quiet must not keep its WAL for ever."""
    from lakerep.sources.landing import land_new_changes

    source = PostgresqlSource(server, ["shop.lines"], slot="lakerep_quiet", publication="lakerep_quiet")
    source.prepare()

    def confirmed() -> int:
        with psycopg.connect(server) as connection:
            return connection.execute(
                "select confirmed_flush_lsn - '0/0'::pg_lsn from pg_replication_slots where slot_name = %s",
                ["lakerep_quiet"],
            ).fetchone()[0]

    before = confirmed()
    for number in range(20):
        execute(server, f"insert into shop.events values ({number}, 'not registered')")
    with psycopg.connect(server) as connection:
        written = connection.execute("select pg_current_wal_flush_lsn() - '0/0'::pg_lsn").fetchone()[0]
    assert land_new_changes(None, source) == 0  # nothing to land: the lake is not asked
    assert confirmed() >= written > before

    execute(server, "insert into shop.lines values (77, 1, 7)")  # the next change is still read
    assert [record["record_type"] for record in source.read().records] == ["I", "C"]


def test_a_large_transaction_passes_through_in_bounded_memory(server):
    """A backlog, or one transaction of many rows, is never held whole: the records stream from a
    server-side cursor (a few of the slot's messages at a time) into the landing."""
    import tracemalloc

    source = PostgresqlSource(server, ["shop.big"], slot="lakerep_big", publication="lakerep_big")
    source.prepare()
    rows = 50_000
    execute(server, f"insert into shop.big select g, repeat('x', 200) from generate_series(1, {rows}) g")

    def peak_and_records(take) -> tuple[int, object]:
        tracemalloc.start()
        try:
            taken = take()
            return tracemalloc.get_traced_memory()[1], taken
        finally:
            tracemalloc.stop()

    def stream_through() -> tuple[int, list[str], str | None]:
        count, last_type, positions = 0, None, []
        with source.stream(fetch_rows=1000) as stream:
            for record in stream.records:
                count += 1
                last_type = record["record_type"]
                if count % 10_000 == 1:
                    positions.append(record["log_position"])
        return count, positions, last_type, stream.confirm_lsn

    streamed_peak, (count, positions, last_type, confirm_lsn) = peak_and_records(stream_through)
    held_peak, held = peak_and_records(source.read)
    assert count == rows + 1 and last_type == "C" and positions == sorted(positions)
    assert confirm_lsn == held.confirm_lsn and len(held.records) == rows + 1
    # nothing grows with the transaction's rows: a row number per LSN held for each row took 5.8 MB
    assert streamed_peak < 2 << 20 and streamed_peak * 20 < held_peak, (streamed_peak, held_peak)
