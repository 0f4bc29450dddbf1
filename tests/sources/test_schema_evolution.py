"""A registered table's DDL on a live PostgreSQL (issue 63, ADR 0012): each change of its columns
becomes a row of the schema history at the position of its first change under the new shape,
and the replicas follow it with the project's files untouched (the declaration is the one of
before the change: what a redeploy of the old files gives). Added columns (nullable, with a
default, NOT NULL with a default), a widened one and a dropped one evolve by themselves, in the
middle of traffic and of a transaction open across a cycle; a rename and a key change stop their
table at their position, with nothing after it applied. The oracle is the server's table."""

from __future__ import annotations

import psycopg
import pytest
from click.testing import CliRunner
from sources.demo_tables import SCHEMA, execute, lake_table, server_table
from sources.postgresql_server import serving

from lakerep.cli import main
from lakerep.lake import reset_lake
from lakerep.registrations import load_registrations
from lakerep.session import SessionStart, run_session
from lakerep.sources.postgresql import PostgresqlSource
from lakerep.sources.schema_history import SCHEMA_HISTORY_TABLE
from lakerep.summary import relation_name

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("one_parse")]

CUSTOMERS = '"SALES"."CUSTOMERS"'
BEFORE = "customer_id, name, email, credit_limit, created_on, updated_at"


@pytest.fixture(scope="module")
def server(spark):
    reset_lake()
    with serving(SCHEMA) as dsn:
        yield dsn
    reset_lake()  # no history left for the next module's lake


def cycle(server: str) -> list[str]:
    """`lakerep run --once --source DSN`, as a `dbt run`; its progress lines."""
    lines: list[str] = []
    source = PostgresqlSource(server, list(load_registrations()))
    run_session(SessionStart("pg", once=True, dbt_command="run", source=source), progress=lines.append)
    return lines


def history(spark) -> list[tuple]:
    return [
        tuple(row)
        for row in spark.sql(
            "select source_table, change_kind, column_name, type_after, column_default "
            f"from {SCHEMA_HISTORY_TABLE} order by log_position, column_name"
        ).collect()
    ]


def test_columns_added_in_the_middle_of_traffic_reach_every_replica(spark, server):
    execute(server, [
        f"""insert into {CUSTOMERS} values ('C1', 'Ann', 'ann@x', 10, '2026-01-02', null),
            ('C2', 'Bob', null, 20, null, null), ('C3', 'Cy', 'cy@x', 30, null, null)""",
    ])  # fmt: skip
    members = ["customers_copy", "order_lines_pit", "orders_history"]
    refreshed = CliRunner().invoke(main, ["refresh", *(f"--member={m}" for m in members), "--source", server])
    assert refreshed.exit_code == 0, refreshed.output
    cycle(server)
    assert lake_table(spark, "customers_copy", BEFORE) == server_table(server, CUSTOMERS, BEFORE)

    # A transaction open across a cycle: a change before the ALTER, the ALTER, changes after it.
    with psycopg.connect(server) as open_transaction:
        open_transaction.execute(f"update {CUSTOMERS} set name = 'Ann B' where customer_id = 'C1'")
        cycle(server)  # sees nothing of it yet
        open_transaction.execute(f"alter table {CUSTOMERS} add column region text")
        open_transaction.execute(
            f"insert into {CUSTOMERS} values ('C4', 'Di', null, 40, null, null, 'north')"
        )
        open_transaction.execute(f"update {CUSTOMERS} set region = 'south' where customer_id = 'C2'")
    execute(server, [
        f"alter table {CUSTOMERS} add column tier int not null default 3",
        f"alter table {CUSTOMERS} add column note text default 'none'",
        f"insert into {CUSTOMERS} values ('C5', 'Ed', null, 50, null, null, 'east', 5, null)",
        f"update {CUSTOMERS} set credit_limit = 31 where customer_id = 'C3'",
    ])  # fmt: skip
    cycle(server)

    assert history(spark) == [
        ("CUSTOMERS", "add_column", "region", "string", None),
        ("CUSTOMERS", "add_column", "note", "string", "none"),
        ("CUSTOMERS", "add_column", "tier", "int", "3"),
    ]
    every = BEFORE + ", region, tier, note"
    assert lake_table(spark, "customers_copy", every) == server_table(server, CUSTOMERS, every)
    assert ("C1", "Ann B", None, 3, "none") in lake_table(
        spark, "customers_copy", "customer_id, name, region, tier, note"
    )
    # the CD and CCD views show the new columns; the changes from before them hold null there
    ccd = lake_table(spark, "ccd_sales__customers", "customer_id, region, tier")
    assert ("C5", "east", 5) in ccd
    cd = relation_name("cd_sales__customers")
    assert spark.sql(f"select count(*) from {cd} where tier is not null").first()[0] >= 2


def test_a_widened_column_widens_its_targets(spark, server):
    execute(server, [
        """insert into "SALES"."ORDER_LINES" values (1, 1, 'P-1', 2, 5.00, null)""",
        """alter table "SALES"."ORDER_LINES" alter column quantity type bigint""",
        """insert into "SALES"."ORDER_LINES" values (1, 2, 'P-2', 5000000000, 1.00, null)""",
    ])  # fmt: skip
    cycle(server)
    assert history(spark)[-1] == ("ORDER_LINES", "widen_column", "quantity", "bigint", None)
    lines = "order_id, line_no, product_code, quantity, unit_price, shipped_at"
    assert lake_table(spark, "order_lines_pit", lines) == server_table(server, '"SALES"."ORDER_LINES"', lines)
    types = dict(spark.table(relation_name("order_lines_pit")).dtypes)
    assert types["quantity"] == "bigint"


def test_a_dropped_column_stays_null_from_the_drop_on(spark, server):
    execute(server, [
        f"alter table {CUSTOMERS} drop column email",
        f"update {CUSTOMERS} set name = 'Cy B' where customer_id = 'C3'",
    ])  # fmt: skip
    cycle(server)
    assert history(spark)[-1] == ("CUSTOMERS", "drop_column", "email", None, None)
    kept = "customer_id, name, credit_limit, region, tier, note"
    assert lake_table(spark, "customers_copy", kept) == server_table(server, CUSTOMERS, kept)
    emails = dict(lake_table(spark, "customers_copy", "customer_id, email"))
    assert emails["C3"] is None and emails["C1"] == "ann@x"  # changed since the drop; untouched


def test_a_rename_stops_its_table_at_its_position(spark, server):
    execute(server, ["""insert into "SALES"."ORDERS" values (1, 'C1', '2026-01-05', 'NEW', 10.25, 'a')"""])
    cycle(server)
    execute(server, [
        """alter table "SALES"."ORDERS" rename column note to remark""",
        """insert into "SALES"."ORDERS" values (2, 'C1', '2026-01-06', 'NEW', 1.00, 'b')""",
    ])  # fmt: skip
    execute(server, [f"update {CUSTOMERS} set name = 'Ed B' where customer_id = 'C5'"])  # a later one
    assert any("1 records quarantined (schema_change_unsafe 1)" in line for line in cycle(server))
    kind, detail = spark.sql(
        f"select change_kind, detail from {SCHEMA_HISTORY_TABLE} where source_table = 'ORDERS'"
    ).first()
    assert kind == "unsafe" and detail == "dropped note and added remark in one change (a rename?)"
    # the change before the rename applied; nothing after it: its transaction is held back whole,
    # and the set waits in a gap for a refresh (the later change of another table waits with it)
    assert lake_table(spark, "orders_history", "order_id") == {(1,)}
    assert ("C5", "Ed") in lake_table(spark, "customers_copy", "customer_id, name")
    result = CliRunner().invoke(main, ["status"])
    assert result.exit_code != 0
    assert "SALES.ORDERS stopped at" in result.output and "a rename?" in result.output
    assert "set APPLY1.SALES: WAITING" in result.output


def test_a_key_change_stops_its_table(spark, server):
    execute(server, [
        'alter table "SALES"."ORDER_LINES" drop constraint "ORDER_LINES_pkey"',
        'alter table "SALES"."ORDER_LINES" add primary key (product_code)',
        """insert into "SALES"."ORDER_LINES" values (3, 1, 'P-3', 1, 1.00, null)""",
    ])  # fmt: skip
    assert any("schema_change_unsafe 1" in line for line in cycle(server))
    detail = spark.sql(
        f"select detail from {SCHEMA_HISTORY_TABLE} "
        "where source_table = 'ORDER_LINES' and change_kind = 'unsafe'"
    ).first()[0]
    assert detail == "the key (order_id, line_no) changed: the log now carries (product_code)"
    held = spark.sql(
        f"select count(*) from {relation_name('int_log_records_judged')} "
        "where source_table = 'ORDER_LINES' and quarantine_reason = 'schema_change_unsafe'"
    ).first()[0]
    assert held == 1
