"""Real Debezium output (issue 62, item 14), not envelopes written from its documentation:
Debezium's embedded engine with its PostgreSQL connector (tests/debezium/engine, jars copied by
`make install`) reads a live server holding the demo's tables, with the settings users leave as
they are (time.precision.mode adaptive, decimal.handling.mode precise) and
provide.transaction.metadata=true. It takes a snapshot while traffic runs, then streams inserts,
updates, a key update and deletes in transactions of several tables, with dates before 1970 and at
the ends of the calendar, timestamps to the microsecond and decimals of every sign and size. Its
event values are written as Kafka Connect's FileStreamSink writes them behind JsonConverter, with
the schema wrapper (Kafka Connect's default) and without.

Columns are added while it streams (nullable, in the middle of a transaction; with a default;
NOT NULL with one) and one is widened. With the wrapper, the schema history records each at its
position, and `lakerep land --format debezium` with a cycle, twice (the file cut in the middle of
the transaction that adds a column), makes every member of APPLY1.SALES equal to its table on the
server. Without it, a timestamp's number cannot be told milliseconds from microseconds, nor a
precise decimal's scale known: the file is refused with one line, and nothing lands."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import psycopg
import pytest
from click.testing import CliRunner
from sources.demo_tables import SCHEMA, execute, lake_table, server_table
from sources.postgresql_server import serving

from lakerep import dbt
from lakerep.cli import EXIT_USER_ERROR, main
from lakerep.lake import reset_lake
from lakerep.sources.schema_history import SCHEMA_HISTORY_TABLE
from lakerep.summary import relation_name

pytestmark = pytest.mark.spark

ENGINE = Path(__file__).parent / "engine" / "WriteEvents.java"
JARS = Path(sys.prefix) / "debezium-jars"  # make install copies them there
STOP_TABLE = "create table public.lakerep_stop (id int primary key)"

# Read by the snapshot: every table of APPLY1.SALES has rows, so the set can start from it.
BEFORE_CAPTURE = [
    """insert into "SALES"."CUSTOMERS" values
        ('C0', 'Zed', 'z@x', -1234567890.12, '1969-12-31', '1900-01-01 00:00:00.000001'),
        ('C5', 'Eve', null, 0, '0001-01-01', '2026-12-02 10:11:12.123456'),
        ('C6', 'Max', 'm@x', 9999999999.99, '9999-12-31', '9999-12-31 23:59:59.999999'),
        ('C7', 'Neg', null, -0.01, '1970-01-01', '1970-01-01 00:00:00')""",
    """insert into "SALES"."ORDERS" values (1, 'C0', '2026-12-02', 'NEW', 5.00, null),
        (2, 'C5', '1969-07-20', 'OLD', -999999999999.99, 'it''s "old"')""",
    """insert into "SALES"."ORDER_LINES" values (1, 1, 'P-1', 2, 2.50, null),
        (2, 1, 'P-2', -1, -0.50, '1969-12-31 23:59:59.999999')""",
    """insert into "INVENTORY"."STOCK" values ('W1', 'P-1', 10, 2, '2026-12-01')""",
]
# Committed while the connector takes its snapshot and streams.
DURING_CAPTURE = [
    [
        """insert into "SALES"."CUSTOMERS" values ('C1', 'Ann', 'ann@x', 100.50, '2026-01-02',
            '2026-01-03 04:05:06.7')""",
        """insert into "SALES"."ORDERS" values (3, 'C1', '2026-01-05', 'NEW', 10.25, null)""",
        """insert into "SALES"."ORDER_LINES" values (3, 1, 'P-1', 1, 10.25, '2026-01-06 07:08:09.000001')""",
    ],
    [
        """update "SALES"."CUSTOMERS" set credit_limit = credit_limit - 0.01,
            updated_at = updated_at + interval '1 microsecond' where customer_id = 'C0'""",
        """update "SALES"."ORDERS" set total = 123456789012.34, status = 'PAID' where order_id = 1""",
        """update "SALES"."ORDER_LINES" set shipped_at = '2000-02-29 12:00:00' where order_id = 1""",
    ],
    ["""update "SALES"."CUSTOMERS" set customer_id = 'C9' where customer_id = 'C5'"""],  # a key update
    [  # columns added in the middle of a transaction, which the landing splits between two cycles
        """update "SALES"."CUSTOMERS" set name = 'Ann B' where customer_id = 'C1'""",
        """alter table "SALES"."CUSTOMERS" add column region text""",
        """insert into "SALES"."CUSTOMERS" values ('D1', 'Dee', null, 1.00, null, null, 'north')""",
        """update "SALES"."CUSTOMERS" set region = 'south' where customer_id = 'C0'""",
    ],
    [
        """alter table "SALES"."CUSTOMERS" add column tier int not null default 3""",
        """alter table "SALES"."CUSTOMERS" add column note text default 'none'""",
        """alter table "SALES"."ORDER_LINES" alter column quantity type bigint""",
        """update "SALES"."CUSTOMERS" set tier = 5 where customer_id = 'C1'""",
        """update "SALES"."ORDER_LINES" set quantity = 5000000000 where order_id = 1 and line_no = 1""",
    ],
    [
        """delete from "SALES"."CUSTOMERS" where customer_id = 'C7'""",
        """delete from "SALES"."ORDER_LINES" where order_id = 2""",
        """update "INVENTORY"."STOCK" set on_hand = 9 where sku = 'P-1'""",
    ],
    [  # many rows in one transaction, of every sign
        """insert into "SALES"."ORDER_LINES"
            select 4, n, 'P-' || n, n - 100, (n - 100) * 1.37,
                timestamp '1969-12-31 00:00:00' + n * interval '1 day 1 second 1 microsecond'
            from generate_series(1, 200) as n""",
        """insert into "SALES"."CUSTOMERS"
            select 'B' || n, 'Bulk', null, (n - 100) * 12345.67, date '1969-12-01' + n * 97, null
            from generate_series(1, 200) as n""",
    ],
    [
        """update "SALES"."ORDER_LINES" set unit_price = -unit_price, quantity = quantity + 1
        where order_id = 4"""
    ],
]
CUSTOMERS = "customer_id, name, email, credit_limit, created_on, updated_at, region, tier, note"
LINES = "order_id, line_no, product_code, quantity, unit_price, shipped_at"
ORDERS = "order_id, customer_id, order_date, status, total, note"


def debezium_events(dsn: str, folder: Path) -> tuple[Path, Path]:
    """The engine's events of the traffic above, with and without the wrapper."""
    assert JARS.is_dir(), f"no Debezium jars in {JARS}: run make install"
    execute(dsn, [*BEFORE_CAPTURE, STOP_TABLE])
    wrapped, bare = folder / "dbserver1-wrapped.jsonl", folder / "dbserver1.jsonl"
    server = urlparse(dsn)
    engine = subprocess.Popen(
        ["java", "-cp", f"{JARS}/*", str(ENGINE), str(wrapped), str(bare), "300",
         f"database.hostname={server.hostname}", f"database.port={server.port}",
         f"database.user={server.username}", "database.password=", "database.dbname=postgres",
         "slot.name=debezium", "snapshot.mode=initial"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        execute(dsn, DURING_CAPTURE[0])
        _wait_for_the_slot(dsn, engine)  # the rest is streamed, some of it during the snapshot
        for statements in DURING_CAPTURE[1:]:
            execute(dsn, statements)
        execute(dsn, ["insert into public.lakerep_stop values (1)"])
        output, _ = engine.communicate(timeout=360)
    finally:
        engine.kill()
    assert engine.returncode == 0, output[-4000:]
    return wrapped, bare


def _wait_for_the_slot(dsn: str, engine: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    with psycopg.connect(dsn, autocommit=True) as connection:
        while not connection.execute(
            "select exists(select 1 from pg_replication_slots where slot_name = 'debezium' and active)"
        ).fetchone()[0]:
            assert engine.poll() is None, engine.communicate()[0][-4000:]
            assert time.monotonic() < deadline, "the engine made no slot"
            time.sleep(0.2)


@pytest.fixture(scope="module")
def captured(spark, tmp_path_factory):
    with serving(SCHEMA) as dsn:
        wrapped, bare = debezium_events(dsn, tmp_path_factory.mktemp("debezium"))
        yield {"dsn": dsn, "wrapped": wrapped, "bare": bare}


def land_and_run(*paths: Path) -> None:
    """Each file landed, then one cycle of the whole project (Capture and Apply)."""
    for path in paths:
        result = CliRunner().invoke(main, ["land", "--format", "debezium", str(path)])
        assert result.exit_code == 0, result.output
        dbt.invoke(["run"], quiet=True)


def split_at_the_first_added_column(path: Path) -> tuple[Path, Path]:
    """The file in two, cut after the first event that holds region: its transaction's END, and
    changes under the new shape, land in the second."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = next(number for number, line in enumerate(lines, 1) if '"field":"region"' in line)
    first, second = path.with_name("first.jsonl"), path.with_name("second.jsonl")
    first.write_text("".join(lines[:cut]), encoding="utf-8")
    second.write_text("".join(lines[cut:]), encoding="utf-8")
    return first, second


def test_with_the_schema_every_member_equals_its_table_on_the_server(spark, captured):
    text = captured["wrapped"].read_text(encoding="utf-8")
    assert '"io.debezium.time.MicroTimestamp"' in text and '"org.apache.kafka.connect.data.Decimal"' in text
    reset_lake()
    land_and_run(*split_at_the_first_added_column(captured["wrapped"]))
    assert [
        tuple(row)
        for row in spark.sql(
            "select source_table, change_kind, column_name, type_after, column_default "
            f"from {SCHEMA_HISTORY_TABLE} order by log_position, column_name"
        ).collect()
    ] == [
        ("CUSTOMERS", "add_column", "region", "string", None),
        ("CUSTOMERS", "add_column", "note", "string", "none"),
        ("CUSTOMERS", "add_column", "tier", "int", "3"),
        ("ORDER_LINES", "widen_column", "quantity", "bigint", None),
    ]
    assert not spark.sql(f"select * from {relation_name('source_log_quarantine')}").collect()
    assert not spark.sql(f"select * from {relation_name('source_snapshot_quarantine')}").collect()
    dsn = captured["dsn"]
    customers = server_table(dsn, '"SALES"."CUSTOMERS"', CUSTOMERS)
    assert lake_table(spark, "customers_copy", CUSTOMERS) == customers
    assert lake_table(spark, "order_lines_pit", LINES) == server_table(dsn, '"SALES"."ORDER_LINES"', LINES)
    history = relation_name("orders_history")
    last_images = spark.sql(
        f"select {ORDERS}, IBMSNAP_OPERATION from {history} where IBMSNAP_INTENTSEQ = "
        f"(select max(IBMSNAP_INTENTSEQ) from {history} as later where later.order_id = {history}.order_id)"
    ).collect()
    assert {tuple(row)[:-1] for row in last_images if row[-1] != "D"} == server_table(
        dsn, '"SALES"."ORDERS"', ORDERS
    )
    assert len(lake_table(spark, "order_lines_pit", LINES)) == 202


def test_without_the_schema_a_value_of_unknown_unit_is_refused_and_nothing_lands(spark, captured):
    reset_lake()
    result = CliRunner().invoke(main, ["land", "--format", "debezium", str(captured["bare"])])
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert f"lakerep: {captured['bare']}, line " in result.stderr
    assert "only the schema says" in result.stderr
    assert not spark.catalog.tableExists("lakerep_raw.debezium_events")
