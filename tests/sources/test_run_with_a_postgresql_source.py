"""A session with a live PostgreSQL source holding the demo's registered tables (issue 23): each
cycle lands the slot's new transactions before Capture; a crash between landing and confirming
lands nothing twice; one cycle brings the server's rows into the condensed CCDs; `lakerep refresh
--source` starts every target at the server's rows, an empty table's too, and `lakerep diff`
compares a target whose table has not changed since with the unload; a TRUNCATE refreshes its
table's members from the server (or stops the run, under DISABLE_REFRESH); values Spark's types
cannot hold (infinity, years BC, NaN) replicate by the declared mapping; `lakerep run --source`
refuses a source it cannot read before doing anything else."""

from __future__ import annotations

import psycopg
import pytest
from click.testing import CliRunner
from sources.demo_tables import SCHEMA, execute, lake_table, server_table
from sources.postgresql_server import serving

from lakerep import apply_commands, dbt
from lakerep.cli import EXIT_USER_ERROR, main
from lakerep.lake import reset_lake
from lakerep.registrations import load_registrations
from lakerep.session import SessionStart, run_session
from lakerep.sources.landing import land_new_changes
from lakerep.sources.postgresql import PostgresqlSource, SourceError, SourceRead
from lakerep.summary import relation_name

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("one_parse")]  # one dbt parse for the module

TRAFFIC = [
    [
        """insert into "SALES"."CUSTOMERS" values ('C1', 'Ann', 'ann@x', 100.50, '2026-01-02', null),
           ('C2', 'Bob', null, 20, '2026-01-03', '2026-01-03 04:05:06.7'),
           ('C3', 'Cy', 'cy@x', 0, null, null)""",
        """insert into "SALES"."ORDERS" values (1, 'C1', '2026-01-05', 'NEW', 10.25, 'it''s "new"')""",
    ],
    ["""update "SALES"."CUSTOMERS" set email = 'bob@x' where customer_id = 'C2'"""],
    ["""update "SALES"."CUSTOMERS" set customer_id = 'C9' where customer_id = 'C3'"""],
    ["""delete from "SALES"."CUSTOMERS" where customer_id = 'C1'"""],
]


@pytest.fixture(scope="module")
def server(spark):
    reset_lake()
    with serving(SCHEMA) as dsn:
        yield dsn


class ConfirmFails(PostgresqlSource):
    """A runner killed after landing, before the slot's confirmation."""

    def confirm(self, lsn: int) -> None:
        raise RuntimeError("killed before the confirmation")


def landed_positions(spark) -> list[str]:
    return [row[0] for row in spark.sql("select log_position from lakerep_raw.source_log").collect()]


def test_a_crash_between_landing_and_confirming_lands_nothing_twice(spark, server):
    tables = list(load_registrations())
    source = PostgresqlSource(server, tables)
    source.prepare()
    execute(server, TRAFFIC[0])
    with pytest.raises(RuntimeError, match="killed"):
        land_new_changes(spark, ConfirmFails(server, tables))
    first = landed_positions(spark)
    assert len(first) == 5  # four inserts and their commit

    assert land_new_changes(spark, source) == 0  # read again, landed already: only confirmed
    assert source.read().records == []
    for statements in TRAFFIC[1:]:
        execute(server, statements)
    assert land_new_changes(spark, source) == 6
    positions = landed_positions(spark)
    assert len(positions) == len(set(positions)) == 11


def test_a_cycle_brings_the_servers_rows_into_the_condensed_ccd(spark, server):
    execute(server, ["""insert into "SALES"."CUSTOMERS" values ('C4', 'Di', 'di', 1.5, null, null)"""])
    source = PostgresqlSource(server, list(load_registrations()))
    # `lakerep run --once --capture-only --source DSN`, as a `dbt run` (no data tests: time)
    run_session(SessionStart("pg", once=True, dbt_command="run", capture_only=True, source=source))
    with psycopg.connect(server) as connection:
        expected = {row[0]: tuple(row) for row in connection.execute('select * from "SALES"."CUSTOMERS"')}
    ccd = spark.sql(
        f"select customer_id, name, email, credit_limit, created_on, updated_at "
        f"from {relation_name('ccd_sales__customers')} where IBMSNAP_OPERATION <> 'D'"
    ).collect()
    assert {row[0]: tuple(row) for row in ccd} == expected
    deleted = spark.sql(
        f"select customer_id from {relation_name('ccd_sales__customers')} where IBMSNAP_OPERATION = 'D'"
    ).collect()
    assert sorted(row[0] for row in deleted) == ["C1", "C3"]  # a delete, and a key update's old key
    assert PostgresqlSource(server, list(load_registrations())).read().records == []  # confirmed


def test_a_refresh_from_the_server_starts_every_target_at_its_rows(spark, server):
    members = ["customers_copy", "order_lines_pit", "orders_history"]
    result = CliRunner().invoke(main, ["refresh", *(f"--member={m}" for m in members), "--source", server])
    assert result.exit_code == 0, result.output
    assert "unloaded 0 rows of SALES.ORDER_LINES" in result.output  # an empty table: an empty target
    assert "unloaded 3 rows of SALES.CUSTOMERS" in result.output

    # changes after the unloads: Apply mirrors them onto the refreshed targets
    execute(
        server,
        [
            """insert into "SALES"."ORDER_LINES" values (1, 1, 'P-1', 2, 5.00, null),
                        (1, 2, 'P-2', 1, 0.25, '2026-01-06 07:08:09')"""
        ],
    )
    source = PostgresqlSource(server, list(load_registrations()))
    run_session(SessionStart("pg", once=True, dbt_command="run", source=source))  # `lakerep run --once`
    customers = "customer_id, name, email, credit_limit, created_on, updated_at"
    lines = "order_id, line_no, product_code, quantity, unit_price, shipped_at"
    assert lake_table(spark, "customers_copy", customers) == server_table(
        server, '"SALES"."CUSTOMERS"', customers
    )
    assert lake_table(spark, "order_lines_pit", lines) == server_table(server, '"SALES"."ORDER_LINES"', lines)
    assert len(lake_table(spark, "order_lines_pit", lines)) == 2

    # CUSTOMERS has not changed since its unload: the unload is a consistent snapshot at the
    # synchpoint, which Capture took past it (the unload's own transaction)
    report = apply_commands.diff(["customers_copy"])
    assert not report.differs, report.lines
    assert report.counts["customers_copy"]["snapshot_id"].startswith("SALES.CUSTOMERS:")
    with pytest.raises(dbt.OperationRejected, match=r"no consistent snapshot of SALES\.ORDER_LINES"):
        apply_commands.diff(["order_lines_pit"])  # changed since its unload


def test_a_truncate_empties_its_tables_members_and_the_rest_of_its_transaction_applies(spark, server):
    execute(server, [  # one transaction: a truncate, a row after it, and a change of another table
        'truncate "SALES"."ORDER_LINES"',
        """insert into "SALES"."ORDER_LINES" values (2, 1, 'P-3', 4, 1.00, null)""",
        """update "SALES"."CUSTOMERS" set name = 'Bea' where customer_id = 'C2'""",
    ])  # fmt: skip
    lines: list[str] = []
    source = PostgresqlSource(server, list(load_registrations()))
    run_session(SessionStart("pg", once=True, dbt_command="run", source=source), progress=lines.append)
    assert any("unloaded 1 rows of SALES.ORDER_LINES" in line for line in lines), lines
    customers = "customer_id, name, email, credit_limit, created_on, updated_at"
    lines_columns = "order_id, line_no, product_code, quantity, unit_price, shipped_at"
    order_lines = lake_table(spark, "order_lines_pit", lines_columns)
    assert order_lines == server_table(server, '"SALES"."ORDER_LINES"', lines_columns)
    assert [row[:3] for row in order_lines] == [(2, 1, "P-3")]
    assert lake_table(spark, "customers_copy", customers) == server_table(
        server, '"SALES"."CUSTOMERS"', customers
    )
    assert source.read() == SourceRead([], source.read().confirm_lsn)  # the slot moved past it


def declared(text: str | None, data_type: str) -> str | None:
    """The oracle of the declared mapping (docs/postgresql.md): the server's text of a value as
    Spark writes the value lakerep replicates."""
    if text is None or data_type == "string":
        return text
    if data_type == "decimal":
        return None if text == "NaN" else text
    if text in {"infinity", "-infinity"}:
        day, time = ("9999-12-31", " 23:59:59.999999") if text == "infinity" else ("0001-01-01", " 00:00:00")
        return day + ("" if data_type == "date" else time)
    if text.endswith(" BC"):
        year, rest = text[:-3].split("-", 1)
        astronomical = int(year) - 1
        return (f"-{astronomical:04d}" if astronomical else "0000") + "-" + rest
    return text


def assert_replicas_equal_the_server_by_the_declared_mapping(spark, dsn: str) -> None:
    for model, table, columns in [
        ("customers_copy", '"SALES"."CUSTOMERS"', {"customer_id": "string", "credit_limit": "decimal",
                                                    "created_on": "date", "updated_at": "timestamp"}),
        ("order_lines_pit", '"SALES"."ORDER_LINES"', {"order_id": "string", "line_no": "string",
                                                      "unit_price": "decimal", "shipped_at": "timestamp"}),
    ]:  # fmt: skip
        lake = {
            tuple(row)
            for row in spark.sql(
                f"select {', '.join(f'cast({c} as string)' for c in columns)} from {relation_name(model)}"
            ).collect()
        }
        with psycopg.connect(dsn) as connection:
            rows = connection.execute(f"select {', '.join(f'{c}::text' for c in columns)} from {table}")
            oracle = {
                tuple(declared(v, t) for v, t in zip(row, columns.values(), strict=True)) for row in rows
            }
        assert lake == oracle, model


def test_values_spark_cannot_hold_replicate_by_the_declared_mapping(spark, server):
    # One transaction of two tables: infinity, years BC and NaN stop nothing and apply whole.
    execute(server, [
        """insert into "SALES"."CUSTOMERS" values ('C20', 'Old', null, 'NaN', '0044-03-15 BC', 'infinity'),
           ('C21', 'Older', null, 1.5, '-infinity', '0001-12-31 23:00:00 BC')""",
        """insert into "SALES"."ORDER_LINES" values (20, 1, 'P-9', 1, 'NaN', '-infinity')""",
    ])  # fmt: skip
    source = PostgresqlSource(server, list(load_registrations()))
    run_session(SessionStart("pg", once=True, dbt_command="run", source=source))
    assert_replicas_equal_the_server_by_the_declared_mapping(spark, server)
    assert ("C20", None, "-0043-03-15", "9999-12-31 23:59:59.999999") in lake_table(
        spark,
        "customers_copy",
        "customer_id, cast(credit_limit as string), cast(created_on as string), cast(updated_at as string)",
    )
    # and through an unload: a refresh loads the same values
    members = ["--member=customers_copy", "--member=order_lines_pit"]
    assert CliRunner().invoke(main, ["refresh", *members, "--source", server]).exit_code == 0
    run_session(SessionStart("pg", once=True, dbt_command="run", source=source))
    assert_replicas_equal_the_server_by_the_declared_mapping(spark, server)


def test_an_update_that_leaves_a_toasted_value_unchanged_keeps_it(spark, server):
    # The server does not send the unchanged value (default replica identity): staging fills it
    # from the row's last image, of the same read (insert, then two updates in one transaction)
    # or of an earlier cycle, and through a key update from the old key's row (the row moved).
    email = "".join(f"{n:08x}" for n in range(4000))  # incompressible: stored out of line
    execute(server, [
        f"""insert into "SALES"."CUSTOMERS" values ('C30', 'a', '{email}', 1, null, null)""",
        """update "SALES"."CUSTOMERS" set name = 'b' where customer_id = 'C30'""",
        """update "SALES"."CUSTOMERS" set credit_limit = 2 where customer_id = 'C30'""",
    ])  # fmt: skip
    source = PostgresqlSource(server, list(load_registrations()))
    run_session(SessionStart("pg", once=True, dbt_command="run", source=source))
    execute(server, ["""update "SALES"."CUSTOMERS" set name = 'c' where customer_id = 'C30'"""])
    run_session(SessionStart("pg", once=True, dbt_command="run", source=source))
    execute(server, [
        """update "SALES"."CUSTOMERS" set customer_id = 'C31' where customer_id = 'C30'""",
        """update "SALES"."CUSTOMERS" set name = 'd' where customer_id = 'C31'""",
    ])  # fmt: skip
    run_session(SessionStart("pg", once=True, dbt_command="run", source=source))
    customers = "customer_id, name, email"  # a NaN credit limit is null in the lake (declared)
    assert lake_table(spark, "customers_copy", customers) == server_table(
        server, '"SALES"."CUSTOMERS"', customers
    )
    assert ("C31", "d", email, 2) in lake_table(spark, "customers_copy", customers + ", credit_limit")
    judged = relation_name("int_log_records_judged")
    unsent = spark.sql(f"select count(*) from {judged} where after_image like '%unavailable%'").first()[0]
    assert unsent == 0  # the valid records carry the value


def test_a_truncate_of_a_table_lakerep_may_not_refresh_stops_the_run_before_its_slot_moves(server):
    execute(server, ['truncate "INVENTORY"."STOCK"'])
    source = PostgresqlSource(server, list(load_registrations()))
    refused = r"TRUNCATE of INVENTORY\.STOCK, whose members stock_copy have DISABLE_REFRESH"
    with pytest.raises(SourceError, match=refused):
        run_session(SessionStart("pg", once=True, dbt_command="run", source=source))
    assert source.read().truncated == ("INVENTORY.STOCK",)  # read again by the next run


def test_a_refresh_from_the_server_refuses_a_table_lakerep_may_not_refresh(server):
    result = CliRunner().invoke(main, ["refresh", "--member", "stock_copy", "--source", server])
    assert result.exit_code == EXIT_USER_ERROR
    assert "INVENTORY.STOCK has DISABLE_REFRESH" in result.stderr


def test_run_refuses_a_source_it_cannot_read_before_anything_else():
    result = CliRunner().invoke(main, ["run", "--once", "--source", "postgresql://nobody@127.0.0.1:1/none"])
    assert result.exit_code == EXIT_USER_ERROR
    assert "lakerep: cannot connect to the PostgreSQL source" in result.stderr
