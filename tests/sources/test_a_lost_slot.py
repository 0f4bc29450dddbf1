"""A slot lost under a running lake never loses a change silently (issue 62, item 1): a slot
dropped (by a DBA, or left behind by a failover), or made again under its name, turns the next
warm run into a cold start from a new slot, every member of the source into a gap, and says so;
after `lakerep refresh --source` every target equals the server again. warmns refuses instead,
and a command stopped while it took the new slot takes it again, never adopts it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sources.demo_tables import SCHEMA, execute, lake_table, server_table
from sources.postgresql_server import serving

from lakerep.cli import EXIT_START_REFUSED, EXIT_USER_ERROR, main
from lakerep.lake import reset_lake
from lakerep.registrations import load_registrations
from lakerep.session import SessionStart, run_session
from lakerep.sources.landing import land_new_changes, open_source
from lakerep.sources.pgoutput import format_lsn
from lakerep.sources.postgresql import PostgresqlSource
from lakerep.sources.slot_continuity import TAKING_A_NEW_SLOT
from lakerep.sources.slot_record import read_slot_record
from lakerep.summary import relation_name

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("one_parse")]  # one dbt parse for the module

SALES = ["customers_copy", "order_lines_pit", "orders_history"]
CUSTOMERS = "customer_id, name, email, credit_limit, created_on, updated_at"
LINES = "order_id, line_no, product_code, quantity, unit_price, shipped_at"


@pytest.fixture(scope="module")
def server(spark):
    reset_lake()
    with serving(SCHEMA) as dsn:
        execute(dsn, [
            """insert into "SALES"."CUSTOMERS" select 'C' || n, 'name ' || n, null, n, null, null
               from generate_series(1, 20) as n""",
            """insert into "SALES"."ORDER_LINES" values (1, 1, 'P-1', 2, 5.00, null)""",
        ])  # fmt: skip
        yield dsn


def source(dsn: str) -> PostgresqlSource:
    return PostgresqlSource.of_registrations(dsn, load_registrations())


def run_once(dsn: str, start_type: str = "warm") -> list[str]:
    """`lakerep run --once --source DSN` as a `dbt run` (no data tests: time); its lines."""
    lines: list[str] = []
    run_session(
        SessionStart("pg", start_type, once=True, dbt_command="run", source=source(dsn)),
        progress=lines.append,
    )
    return lines


def refresh(dsn: str) -> str:
    result = CliRunner().invoke(main, ["refresh", *(f"--member={m}" for m in SALES), "--source", dsn])
    assert result.exit_code == 0, result.output
    return result.output


def assert_targets_equal_the_server(spark, dsn: str) -> None:
    customers = server_table(dsn, '"SALES"."CUSTOMERS"', CUSTOMERS)
    assert lake_table(spark, "customers_copy", CUSTOMERS) == customers
    assert lake_table(spark, "order_lines_pit", LINES) == server_table(dsn, '"SALES"."ORDER_LINES"', LINES)


def plans(spark) -> dict[str, tuple[str, str | None]]:
    """The latest Apply cycle's plan of each SALES member: (action, reason)."""
    rows = spark.sql(
        f"select target_table, action, reason from {relation_name('apply_plan')} where set_name = 'SALES' "
        f"and apply_cycle = (select max(apply_cycle) from {relation_name('apply_plan')})"
    ).collect()
    return {row.target_table: (row.action, row.reason) for row in rows}


def test_a_dropped_slot_turns_the_next_run_cold_and_every_member_into_a_gap(spark, server):
    refresh(server)
    run_once(server)
    assert_targets_equal_the_server(spark, server)
    recorded = read_slot_record(spark)
    assert recorded is not None and recorded.slot == "lakerep" and recorded.cold_start_from is None

    execute(server, [
        "select pg_drop_replication_slot('lakerep')",
        """update "SALES"."CUSTOMERS" set email = 'lost@x' where customer_id <= 'C5'""",
        """delete from "SALES"."CUSTOMERS" where customer_id in ('C10', 'C11')""",
    ])  # fmt: skip
    lines = run_once(server)
    said = next(line for line in lines if "is gone" in line)
    assert "the replication slot lakerep is gone" in said and "starts cold there" in said
    # nothing applied as if in step: every member of the source waits for a full refresh
    gap = plans(spark)
    assert set(gap) == set(SALES)
    for action, reason in gap.values():
        assert action != "mirror" and "gap" in reason, (action, reason)
    assert lake_table(spark, "customers_copy", CUSTOMERS) != server_table(
        server, '"SALES"."CUSTOMERS"', CUSTOMERS
    )
    assert read_slot_record(spark).cold_start_from is None  # the cold start has run

    refresh(server)
    execute(server, ["""update "SALES"."CUSTOMERS" set name = 'after' where customer_id = 'C1'"""])
    run_once(server)
    assert_targets_equal_the_server(spark, server)


def test_a_slot_made_again_is_refused_by_warmns_and_turns_warm_cold(spark, server):
    for statement in [  # each its own transaction: a slot is made in none that wrote
        "select pg_drop_replication_slot('lakerep')",
        """insert into "SALES"."ORDER_LINES" values (2, 1, 'P-2', 1, 0.25, null)""",
        "select pg_create_logical_replication_slot('lakerep', 'pgoutput')",
        """update "SALES"."ORDER_LINES" set quantity = 7 where order_id = 1""",
    ]:
        execute(server, [statement])
    before = read_slot_record(spark)
    warmns = ["run", "--session", "pg", "--once", "--start", "warmns", "--source", server]
    result = CliRunner().invoke(main, warmns)
    assert result.exit_code == EXIT_START_REFUSED, result.output
    assert "past what the lake confirmed" in result.stderr and "start cold (--start cold)" in result.stderr
    assert read_slot_record(spark) == before  # refused with nothing changed

    lines = run_once(server)
    assert any("past what the lake confirmed" in line for line in lines), lines
    assert all(action != "mirror" for action, _ in plans(spark).values())
    refresh(server)
    run_once(server)
    assert_targets_equal_the_server(spark, server)


class TakingFails(PostgresqlSource):
    """A command killed after recording that it takes a new slot, before the slot is made."""

    def take_new_slot(self) -> int:
        raise RuntimeError("killed while taking a new slot")


def test_a_new_slot_cut_off_while_taken_is_taken_again(spark, server):
    execute(server, ["select pg_drop_replication_slot('lakerep')"])
    with pytest.raises(RuntimeError, match="killed"):
        open_source(spark, TakingFails.of_registrations(server, load_registrations()))
    assert read_slot_record(spark).cold_start_from == TAKING_A_NEW_SLOT

    opened = open_source(spark, source(server))
    assert "was being taken" in opened.said
    assert opened.cold_start_from is not None
    assert read_slot_record(spark).cold_start_from == opened.cold_start_from
    run_once(server)  # the cold start it owes
    assert all(action != "mirror" for action, _ in plans(spark).values())
    assert read_slot_record(spark).cold_start_from is None


class ConfirmFails(PostgresqlSource):
    """A command killed after the lake recorded where it confirms, before the slot moved."""

    def confirm(self, lsn: int) -> None:
        raise RuntimeError("killed while confirming the slot")


def test_a_slot_left_behind_the_lakes_record_is_confirmed_up_to_it(spark, server):
    """A command killed between recording the slot's new position and confirming it leaves the
    slot behind the record; the records it landed are read again and left out, so nothing would
    confirm them: the next command confirms the slot up to the record as it opens the source,
    or the server keeps that WAL until the source next commits."""
    refresh(server)  # the members left in a gap by the cold start before
    execute(server, ["""update "SALES"."CUSTOMERS" set name = 'behind' where customer_id = 'C3'"""])
    failing = ConfirmFails.of_registrations(server, load_registrations())
    before = slot_position(server, "lakerep")
    with pytest.raises(RuntimeError, match="killed"):
        land_new_changes(spark, failing, open_source(spark, failing))
    recorded = read_slot_record(spark)
    assert slot_position(server, "lakerep") == before != format_lsn(recorded.confirmed_lsn)

    open_source(spark, source(server))
    assert slot_position(server, "lakerep") == format_lsn(recorded.confirmed_lsn)
    run_once(server)
    assert_targets_equal_the_server(spark, server)


def slot_position(dsn: str, slot: str) -> str | None:
    """The slot's confirmed position, or None when the server has no such slot."""
    found = server_table(dsn, f"pg_replication_slots where slot_name = '{slot}'", "confirmed_flush_lsn::text")
    return next(iter(found), (None,))[0]


def test_a_second_lake_is_refused_the_first_lakes_slot_and_reads_its_own(spark, server):
    """Issue 62, item 2: two lakes on one database under the default slot name would confirm away
    each other's changes. A new lake that finds the slot refuses it, with nothing changed, and
    reads under a slot of its own (--slot). Last in the module: it empties the lake."""
    if slot_position(server, "lakerep") is None:  # the first lake's slot (run alone, the module made none)
        execute(server, ["select pg_create_logical_replication_slot('lakerep', 'pgoutput')"])
    before = slot_position(server, "lakerep")
    reset_lake()  # a second lake (a new LAKEREP_HOME) on the same server
    result = CliRunner().invoke(main, ["run", "--session", "pg", "--once", "--source", server])
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert "the replication slot lakerep exists already and this lake has read nothing" in result.stderr
    assert read_slot_record(spark) is None
    assert slot_position(server, "lakerep") == before

    refresh_own = ["refresh", *(f"--member={m}" for m in SALES), "--source", server, "--slot", "lakerep_b"]
    result = CliRunner().invoke(main, refresh_own)
    assert result.exit_code == 0, result.output
    assert read_slot_record(spark).slot == "lakerep_b"
    execute(server, ["""update "SALES"."CUSTOMERS" set name = 'second' where customer_id = 'C2'"""])
    run = ["run", "--session", "pg", "--once", "--source", server, "--slot", "lakerep_b"]
    result = CliRunner().invoke(main, run)
    assert result.exit_code == 0, result.output
    assert_targets_equal_the_server(spark, server)
    assert slot_position(server, "lakerep") == before  # the first lake's slot untouched
