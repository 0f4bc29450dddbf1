"""Each check of the crash scenarios fails on a tampered lake, naming the row it found, and passes
on the untouched one (SPEC §7): a check that passes whatever the lake holds proves nothing.

One lake is built by a short scenario without crashes (a cold start, a refresh over a busy
window, an external refresh of stock_copy, a prune, and the first cycle's refreshes). Each test
then does to one table what a fault would (deletes a row, changes a value, duplicates a row,
moves a synchpoint), runs the check, and puts the table back with Delta's RESTORE. The SPEC's
per-source CD and CCD tables, the UOW table, the register and the trail are views (ADR 0011), so
a fault reaches them through the shared table they read: captured_log, ccd_rows,
capture_cycles or apply_cycles. Every check
has passed on the untouched lake before any test tampers with it (the `untouched` fixture, once
for the module, as a check costs up to a dbt invocation). A RESTORE that fails fails the test
that tampered, and each failure must name the row its own test tampered with.

The trace's COLD and REFRESH rows are views of the restart decisions and the applied plans the
check compares them with, so no tampering with one table can part them; check_trace is tampered
through what the decisions say instead.

`make scenarios` runs these beside the scenarios whose checks they prove, not `make test`.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

import pytest

from lakerep import dbt
from lakerep.scenarios import checks
from lakerep.scenarios.driver import Driver
from lakerep.scenarios.schedule import Schedule, Step
from lakerep.summary import relation_name
from lakerep.workload.values import format_position

SCHEDULE = Schedule(
    seed=9001,
    landing_order="log",
    first_records=300,
    steps=(
        Step(records=150, event="cold", crash_fraction=None),
        Step(records=150, event="refresh", crash_fraction=None),
        Step(records=150, event="external", crash_fraction=None),
        Step(records=150, event="prune", crash_fraction=None),
    ),
)
# one dbt parse for the module's sessions; every check passes on the untouched lake before any tampering
pytestmark = [pytest.mark.spark, pytest.mark.scenarios, pytest.mark.usefixtures("one_parse", "untouched")]

FIRST_POSITION = format_position(1)
# the image's email (null, or a JSON string with its escapes) replaced, as the log writes images
EMAIL_TAMPERED = (
    "update {table} set row_image = regexp_replace(row_image, "
    r"""'"email": (null|"([^"\\\\]|\\\\.)*")', '"email": "x@tampered"') """
)
QUANTITY_TAMPERED = (
    "update {table} set row_image = "
    """regexp_replace(row_image, '"quantity": (null|-?[0-9]+)', '"quantity": -7') """
)
LAST_POSITION = "F" * 20


@pytest.fixture(scope="module")
def scenario(spark):
    driver = Driver(SCHEDULE, min_crashes=0)
    driver.play(lambda _: None)
    return driver


@pytest.fixture(scope="module")
def untouched(spark, scenario) -> list[str]:
    """Every check of the scenarios, run on the lake as the scenario left it: what check_lake's
    ten said (each raises if it fails), and the prune check's silence."""
    passed = checks.check_lake(scenario.workload, scenario.journal)
    checks.check_prune_keeps_what_members_need(spark, checks.prune_bounds(spark))
    return passed


@contextmanager
def tampered(spark, model: str, statement: str):
    """Run `statement` ({table}: the model's table), then restore the table as it was."""
    table = relation_name(model)
    version = spark.sql(f"describe history {table} limit 1").collect()[0].version
    try:
        spark.sql(statement.format(table=table))
        yield table
    finally:
        spark.sql(f"restore table {table} to version as of {version}")


def assert_fails(check, spark, model: str, statement: str, match: str) -> None:
    """`check()`, which passed on the untouched lake, fails with a message matching `match` once
    `statement` has tampered with the model's table."""
    with tampered(spark, model, statement), pytest.raises(AssertionError, match=match):
        check()


def one(spark, sql: str):
    found = spark.sql(sql).collect()
    assert found and found[0][0] is not None, f"nothing to tamper with: {sql}"
    return found[0]


def copied(spark, model: str, where: str, **replaced: str) -> str:
    """An insert of the model's rows matching `where` again, with the `replaced` columns' SQL."""
    table = relation_name(model)
    columns = ", ".join(replaced.get(column, f"`{column}`") for column in spark.table(table).columns)
    return f"insert into {{table}} select {columns} from {{table}} where {where}"


def test_every_check_passes_on_the_untouched_lake(scenario, untouched):
    assert len(untouched) == 10, untouched
    assert scenario.journal.cold_starts == 1 and scenario.journal.prunes == 1
    asked = {action for _, action, _ in scenario.journal.refreshes_asked}
    assert asked == {"REFRESH", "EXTERNAL_REFRESH"}


def test_a_changed_target_row_fails_the_diff_naming_its_key(spark, scenario):
    # a plain key (the generator gives some keys quotes and backslashes): a plain literal and regex
    key = one(
        spark,
        f"select min(customer_id) from {relation_name('customers_copy')} where customer_id rlike '^C[0-9]+$'",
    )[0]
    assert_fails(
        lambda: checks.check_targets_equal_the_oracle(spark, scenario.workload),
        spark,
        "customers_copy",
        f"update {{table}} set email = 'x@tampered' where customer_id = '{key}'",
        rf'differ from the oracle(.|\n)*differs {{"customer_id":"{key}"}}: email',
    )


def test_a_moved_commit_marker_fails_the_point_in_time_check_naming_its_key(spark, scenario):
    target = relation_name("order_lines_pit")
    order_id, line_no = one(spark, f"select order_id, line_no from {target} order by 1, 2 limit 1")
    assert_fails(
        lambda: checks.check_targets_equal_the_oracle(spark, scenario.workload),
        spark,
        "order_lines_pit",
        f"update {{table}} set IBMSNAP_COMMITSEQ = '{FIRST_POSITION}' "
        f"where order_id = {order_id} and line_no = {line_no}",
        rf"order_lines_pit: 1 rows .* key \({order_id}, {line_no}\) holds \('{FIRST_POSITION}'",
    )


def test_a_row_deleted_from_a_history_target_fails_its_check_naming_the_row(spark, scenario):
    position = one(spark, f"select max(IBMSNAP_INTENTSEQ) from {relation_name('orders_history')}")[0]
    assert_fails(
        lambda: checks.check_targets_equal_the_oracle(spark, scenario.workload),
        spark,
        "orders_history",
        f"delete from {{table}} where IBMSNAP_INTENTSEQ = '{position}'",
        rf"orders_history: its history .* 1 missing \(first .*'{position}'",
    )


@pytest.mark.parametrize(
    ("model", "key", "rows_of"),
    [
        ("cd_sales__orders", "IBMSNAP_INTENTSEQ", "source_table = 'ORDERS'"),
        ("uow", "IBMSNAP_UOWID", "IBMSNAP_OPERATION = 'C'"),
    ],
)
def test_a_duplicated_row_fails_the_duplicate_check_naming_it(spark, scenario, model, key, rows_of):
    first = one(spark, f"select min({key}) from {relation_name(model)}")[0]
    column = "IBMSNAP_INTENTSEQ" if key == "IBMSNAP_INTENTSEQ" else key
    assert_fails(
        lambda: checks.check_no_duplicates(spark),
        spark,
        "captured_log",
        copied(spark, "captured_log", f"{rows_of} and {column} = '{first}'"),
        rf"{model} holds duplicate rows: .*'{key}': '{first}'",
    )


def test_a_moved_register_synchpoint_fails_the_register_check(spark, scenario):
    # Delta's UPDATE takes no subquery: the last cycle's number as a literal
    [cycle] = one(spark, f"select max(cycle_number) from {relation_name('capture_cycles')}")
    assert_fails(
        lambda: checks.check_register(spark, scenario.workload),
        spark,
        "capture_cycles",
        f"update {{table}} set synchpoint = '{FIRST_POSITION}' where record_kind = 'cycle' "
        f"and cycle_number = {cycle}",
        f"register SYNCHPOINT {FIRST_POSITION}, but the last commit landed is",
    )


def last_committed_cd_row(spark, model: str):
    """(INTENTSEQ, UOWID) of the CD row of the last UOW committed."""
    return one(
        spark,
        "select cd.IBMSNAP_INTENTSEQ, cd.IBMSNAP_UOWID "
        f"from {relation_name(model)} as cd inner join {relation_name('uow')} as uow "
        "on cd.IBMSNAP_UOWID = uow.IBMSNAP_UOWID "
        "order by uow.IBMSNAP_COMMITSEQ desc, cd.IBMSNAP_INTENTSEQ desc limit 1",
    )


def test_a_deleted_cd_row_fails_the_change_data_check_naming_it(spark, scenario):
    position, uow_id = last_committed_cd_row(spark, "cd_sales__customers")
    assert_fails(
        lambda: checks.check_change_data(spark, scenario.workload),
        spark,
        "captured_log",
        f"delete from {{table}} where IBMSNAP_INTENTSEQ = '{position}' and source_table = 'CUSTOMERS'",
        rf"SALES.CUSTOMERS: \d+ changes .* not in its CD table .*'{position}', '{uow_id}'",
    )


def test_a_changed_cd_value_fails_the_change_data_check_naming_the_row(spark, scenario):
    position, uow_id = last_committed_cd_row(spark, "cd_sales__customers")
    assert_fails(
        lambda: checks.check_change_data(spark, scenario.workload),
        spark,
        "captured_log",
        EMAIL_TAMPERED + f"where IBMSNAP_INTENTSEQ = '{position}' and source_table = 'CUSTOMERS'",
        rf"CD rows hold other values .* \('{position}', '{uow_id}', '[DIU]'\): .*'x@tampered'",
    )


def test_a_cd_row_the_source_never_wrote_fails_the_change_data_check(spark, scenario):
    position, _ = last_committed_cd_row(spark, "cd_sales__customers")
    assert_fails(
        lambda: checks.check_change_data(spark, scenario.workload),
        spark,
        "captured_log",
        copied(
            spark,
            "captured_log",
            f"IBMSNAP_INTENTSEQ = '{position}' and source_table = 'CUSTOMERS'",
            IBMSNAP_UOWID="'NOT-A-UOW'",
        ),
        rf"holds \d+ rows the source never wrote \(\[\('{position}', 'NOT-A-UOW'",
    )


def test_a_ccd_row_held_twice_fails_the_ccd_check_naming_it(spark, scenario):
    model = "ccd_inventory__stock"  # a history: one row per change and operation
    position = one(spark, f"select max(IBMSNAP_INTENTSEQ) from {relation_name(model)}")[0]
    assert_fails(
        lambda: checks.check_ccd(spark, scenario.workload, scenario.journal),
        spark,
        "ccd_rows",
        copied(spark, "ccd_rows", f"source_table = 'STOCK' and IBMSNAP_INTENTSEQ = '{position}'"),
        rf"{model}: \d+ rows held twice at its grain \(first \('[0-9A-F]+', '{position}'",
    )


def test_a_changed_ccd_value_fails_the_ccd_check_naming_the_row(spark, scenario):
    model = "ccd_sales__order_lines"  # condensed: the latest change of each key
    order_id, line_no = one(
        spark, f"select order_id, line_no from {relation_name(model)} order by 1, 2 limit 1"
    )
    assert_fails(
        lambda: checks.check_ccd(spark, scenario.workload, scenario.journal),
        spark,
        "ccd_rows",
        QUANTITY_TAMPERED + f"where source_table = 'ORDER_LINES' "
        f"and get_json_object(row_image, '$.order_id') = '{order_id}' "
        f"and get_json_object(row_image, '$.line_no') = '{line_no}'",
        rf"{model}: 1 rows the source never had, .*{order_id}, {line_no}, .*, -7, ",
    )


def test_a_deleted_ccd_row_fails_the_ccd_check_naming_it(spark, scenario):
    model = "ccd_inventory__stock"
    position = one(spark, f"select max(IBMSNAP_INTENTSEQ) from {relation_name(model)}")[0]
    assert_fails(
        lambda: checks.check_ccd(spark, scenario.workload, scenario.journal),
        spark,
        "ccd_rows",
        f"delete from {{table}} where source_table = 'STOCK' and IBMSNAP_INTENTSEQ = '{position}'",
        rf"{model}: \d+ rows of changes .* missing, .*'{position}'",
    )


def test_a_uow_at_another_commit_or_gone_fails_the_uow_check_naming_it(spark, scenario):
    uow_id = one(spark, f"select max_by(IBMSNAP_UOWID, IBMSNAP_COMMITSEQ) from {relation_name('uow')}")[0]
    assert_fails(
        lambda: checks.check_uow(spark, scenario.workload),
        spark,
        "captured_log",
        f"update {{table}} set IBMSNAP_INTENTSEQ = '{FIRST_POSITION}' "
        f"where IBMSNAP_OPERATION = 'C' and IBMSNAP_UOWID = '{uow_id}'",
        rf"holds 1 UOWs not committed there .*'{uow_id}', '{FIRST_POSITION}'",
    )
    assert_fails(
        lambda: checks.check_uow(spark, scenario.workload),
        spark,
        "captured_log",
        f"delete from {{table}} where IBMSNAP_OPERATION = 'C' and IBMSNAP_UOWID = '{uow_id}'",
        rf"lacks 1 UOWs .*'{uow_id}'",
    )


def test_a_restart_synchpoint_moved_back_fails_the_token_check_naming_the_source(spark, scenario):
    cycle = one(spark, f"select max(cycle_number) from {relation_name('capture_cycles')}")[0]
    assert_fails(
        lambda: checks.check_restart_tokens(spark, scenario.workload),
        spark,
        "capture_cycles",
        f"update {{table}} set restart2 = '{FIRST_POSITION}' where record_kind = 'source' "
        f"and session_name = 'scenario' and source_owner = 'SALES' and source_table = 'ORDERS' "
        f"and cycle_number = {cycle}",
        rf"SALES.ORDERS: restarting from RESTART1 \w+ RESTART2 {FIRST_POSITION} would lose \d+ changes",
    )


def test_a_set_whose_last_cycle_stopped_short_fails_the_pruning_control_check(spark, scenario):
    cycle = one(spark, f"select max(apply_cycle) from {relation_name('apply_cycles')}")[0]
    assert_fails(
        lambda: checks.check_pruning_control(spark),
        spark,
        "apply_cycles",
        f"update {{table}} set synchpoint = '{FIRST_POSITION}' "
        f"where record_kind = 'set' and set_name = 'STOCK' and apply_cycle = {cycle}",
        f"set STOCK applied up to {FIRST_POSITION}, Capture's SYNCHPOINT is",
    )


def test_a_cold_start_the_scenario_never_asked_for_fails_the_trace_check_naming_the_run(spark, scenario):
    decisions = relation_name("restart_decisions")
    run_id = one(spark, f"select max_by(run_id, decided_at) from {decisions} where not cold_start")[0]
    assert_fails(
        lambda: checks.check_trace(spark, scenario.journal),
        spark,
        "restart_decisions",
        f"update {{table}} set restart_rule = 'automatic cold start' where run_id = '{run_id}'",
        f"warm runs switched to a cold start: .*{re.escape(run_id)}",
    )
    assert_fails(
        lambda: checks.check_trace(spark, scenario.journal),
        spark,
        "restart_decisions",
        f"update {{table}} set cold_start = true where run_id = '{run_id}'",
        r"started 1 cold runs \(1 finished\), restart_decisions has 2",
    )


def test_an_external_refresh_never_done_fails_the_refreshes_check_naming_it(spark, scenario):
    assert_fails(
        lambda: checks.check_refreshes_asked_were_done(spark, scenario.journal),
        spark,
        "apply_cycles",
        "delete from {table} where record_kind = 'member' and action = 'EXTERNAL_REFRESH'",
        r"\d+ refreshes asked for were never done .*\('stock_copy', 'EXTERNAL_REFRESH', \d+\)",
    )


def test_a_prune_past_a_member_fails_the_prune_check_naming_the_source(spark, scenario):
    bounds = checks.prune_bounds(spark)
    assert_fails(
        lambda: checks.check_prune_keeps_what_members_need(spark, bounds),
        spark,
        "capture_cycles",
        f"update {{table}} set cd_old_synchpoint = '{LAST_POSITION}' "
        "where record_kind = 'source' and source_owner = 'INVENTORY' and source_table = 'STOCK'",
        rf"past the members: .*'INVENTORY.STOCK': \('{LAST_POSITION}'",
    )


def test_a_broken_column_contract_fails_the_contract_test_naming_rule_column_and_value(spark, scenario):
    """The data test lakerep_column_contracts (a model's not_null, accepted_values and unique
    rules in one statement) passes on the untouched captured log, and fails once a UOW row is held
    twice, once with a null capture_cycle and once with an unknown operation: a row per rule
    broken, naming it, both stored (--store-failures) and in the failure's message, which a
    failing run prints."""
    select = ["test", "--select", "captured_log,test_name:lakerep_column_contracts", "--store-failures"]
    assert dbt.invoke(select, check=False, quiet=True).exit_code == dbt.EXIT_OK
    latest = "select max(IBMSNAP_INTENTSEQ) from {} where IBMSNAP_OPERATION = 'C'"
    [commitseq] = one(spark, latest.format(relation_name("captured_log")))
    where = f"IBMSNAP_OPERATION = 'C' and IBMSNAP_INTENTSEQ = '{commitseq}'"
    held_twice = copied(spark, "captured_log", where, capture_cycle="cast(null as bigint)")
    unknown = copied(spark, "captured_log", where, IBMSNAP_OPERATION="'X'").split(" select ", 1)[1]
    with tampered(spark, "captured_log", f"{held_twice} union all select {unknown}"):
        outcome = dbt.invoke(select, check=False, quiet=True)
    assert outcome.exit_code != dbt.EXIT_OK
    assert '"column_names": "IBMSNAP_OPERATION", "offending_value": "X"' in outcome.detail, outcome.detail
    [failed] = [result for result in outcome.result.results if result.node.resource_type == "test"]
    failures = {tuple(row) for row in spark.sql(f"select * from {failed.node.relation_name}").collect()}
    key = f'{{"IBMSNAP_INTENTSEQ":"{commitseq}","IBMSNAP_OPERATION":"C"}}'
    assert failures == {
        ("not_null", "capture_cycle", None, 1),
        ("accepted_values", "IBMSNAP_OPERATION", "X", 1),
        ("unique", "IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION", key, 2),
    }
