"""Capture (SPEC §3) against the oracle: a generated workload captured in cycles whose boundaries
fall inside open transactions, each cycle read twice, in both landing orders; then every cycle
read again."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from ccd_support import actual_ccd_history, actual_condensed_state, expected_ccd_history, global_synchpoint

from lakerep import dbt
from lakerep.lake import reset_lake
from lakerep.pipeline import APPLY_MODELS, land_workload, run_cycle
from lakerep.registrations import load_registrations
from lakerep.scaffold import cd_model_name
from lakerep.summary import relation_name

pytestmark = pytest.mark.usefixtures("one_parse")  # the cycles of the module share one dbt parse

CYCLES = 2  # the first cycle, and a warm one after it: a third would take the second's path again
LOG_RECORDS_PER_CYCLE = 700
REGISTRATIONS = load_registrations()
# For what the landing order plays no part in (statement settings, view definitions): one lake.
ONE_LANDING_ORDER = pytest.mark.parametrize("captured", ["log"], indirect=True)


def run_cycle_twice(spark) -> None:
    """A cycle, then the same cycle again as if the first had been cut off just before its
    commit record (the capture_cycles row): the second reads the same window once more."""
    run_cycle(quiet=True, command="run", capture_only=True)
    cycles = relation_name("capture_cycles")
    last = spark.sql(f"select max(cycle_number) from {cycles}").collect()[0][0]
    spark.sql(f"delete from {cycles} where cycle_number = {last}")
    run_cycle(quiet=True, command="run", capture_only=True)


def capture_cycles(spark, workload, cycles: int) -> None:
    from lakerep import landing

    for _ in range(cycles):
        landing.land_log_records(spark, workload.next_batch(LOG_RECORDS_PER_CYCLE).records)
        run_cycle_twice(spark)


@pytest.fixture(scope="module", params=["log", "commit"])
def captured(request, spark):
    reset_lake()
    landed = land_workload(
        records=LOG_RECORDS_PER_CYCLE,
        seed=23,
        batch_records=LOG_RECORDS_PER_CYCLE,
        landing_order=request.param,
    )
    run_cycle_twice(spark)
    capture_cycles(spark, landed.workload, CYCLES - 1)
    return landed.workload


def check_against_oracle(spark, workload) -> None:
    oracle = workload.oracle
    synchpoint = global_synchpoint(spark)
    assert synchpoint == max(oracle.commit_positions())
    for registration in REGISTRATIONS.values():
        if registration.ccd_condensed:
            expected_state = oracle.state_at(registration.qualified_name, synchpoint)
            assert expected_state, registration.qualified_name
            assert actual_condensed_state(spark, registration) == expected_state, registration.qualified_name
        else:
            expected_history = expected_ccd_history(oracle, registration, synchpoint)
            assert {row[2] for row in expected_history} == {"I", "U", "D"}, registration.qualified_name
            assert actual_ccd_history(spark, registration) == expected_history, registration.qualified_name


def test_ccds_equal_the_oracle_at_the_capture_synchpoint(spark, captured):
    check_against_oracle(spark, captured)


def test_a_cycle_of_new_batches_appends_its_cd_and_uow_rows_once(spark, captured):
    """A cycle that reads new landing batches only appends its CD and UOW rows to the captured
    log with a plain INSERT under Delta's transaction identifiers (lakerep_write_as 'append'):
    every cycle of the fixture ran twice, the second time as if the first had been cut off before
    its commit record, and the second append was left out by Delta, not doubled. The first cycle
    creates the table and appends its rows without an identifier; its second run, a source with
    no restart tokens yet reading from the start, adds nothing and commits nothing. The
    identifiers are unset once the invocation ends."""
    compiled = Path(os.environ["DBT_TARGET_PATH"]) / "run" / "lakerep" / "models" / "capture"
    statement = " ".join((compiled / "captured_log.sql").read_text(encoding="utf-8").split())
    assert "insert into lakerep_capture.captured_log" in statement
    assert "merge" not in statement.lower()
    table = relation_name("captured_log")
    key = "IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION"
    duplicates = spark.sql(f"select {key} from {table} group by {key} having count(*) > 1").collect()
    assert duplicates == []
    # One append per cycle after the first, each under its own identifier: the second attempt
    # added none.
    transactions = [txn for txn in appended_transactions(spark, table) if txn is not None]
    assert len(transactions) == CYCLES - 1, transactions
    assert len(set(transactions)) == len(transactions), transactions
    # ... and the first cycle's second run committed nothing: the table's commits are its
    # creation, then one append per cycle
    operations = [row.operation for row in spark.sql(f"describe history {table}").collect()]
    assert operations[:-1] == ["WRITE"] * CYCLES and operations[-1].startswith("CREATE"), operations
    for setting in ["txnAppId", "txnVersion"]:
        assert spark.conf.get(f"spark.databricks.delta.write.{setting}", None) is None


def appended_transactions(spark, table: str) -> list[tuple[str, int] | None]:
    """The transaction identifier (txnAppId, txnVersion) each WRITE commit of a Delta table
    recorded, None for a WRITE without one, read from its log."""
    location = spark.sql(f"describe detail {table}").collect()[0]["location"]
    log = Path(urlparse(location).path) / "_delta_log"
    versions = spark.sql(f"describe history {table}").where("operation = 'WRITE'").collect()
    transactions = []
    for row in versions:
        commit = log / f"{row['version']:020d}.json"
        actions = [json.loads(line) for line in commit.read_text(encoding="utf-8").splitlines()]
        txns = [action["txn"] for action in actions if "txn" in action]
        transactions.append((txns[0]["appId"], txns[0]["version"]) if txns else None)
    return transactions


SKIPPING = "set spark.databricks.delta.stats.skipping = "
WRITE = re.compile(r"(insert into|merge into|insert overwrite) lakerep_")


def invocation_statements(args: list[str]) -> list[tuple[str, str, bool]]:
    """(node unique_id or "", statement, file skipping on) of every SQL statement a dbt
    invocation sends; skipping is on when an invocation starts."""
    statements: list[tuple[str, str, bool]] = []
    skipping = True

    def record(event) -> None:
        nonlocal skipping
        if event.info.name == "SQLQuery":
            sql = " ".join(event.data.sql.split())
            node = re.search(r'"node_id": "([\w.]+)"', sql)
            if SKIPPING in sql:
                skipping = sql.endswith("true")
            statements.append((node.group(1) if node else "", sql, skipping))

    dbt.EVENT_CALLBACKS.append(record)
    try:
        dbt.invoke(args, quiet=True)
    finally:
        dbt.EVENT_CALLBACKS.remove(record)
    return statements


@ONE_LANDING_ORDER
def test_file_skipping_is_off_only_for_the_nodes_that_gain_nothing_from_it(spark, captured):
    """Data tests read whole tables: Delta's file skipping is off while they run
    (lakerep_file_skipping=false), on for every model, and on again when the invocation ends,
    for the runner's own queries."""
    statements = invocation_statements(["run", "--exclude", APPLY_MODELS])
    writes = {node: skipping for node, sql, skipping in statements if WRITE.search(sql)}
    assert writes and all(writes.values()), writes
    assert statements[-1][2] and spark.conf.get("spark.databricks.delta.stats.skipping") == "true"
    statements = invocation_statements(["test", "--select", "capture_window"])
    tests = [skipping for node, _, skipping in statements if node.startswith("test.lakerep.")]
    assert tests and not any(tests)
    assert statements[-1][2] and spark.conf.get("spark.databricks.delta.stats.skipping") == "true"


VIEWS = ["run", "--select", "config.materialized:view", "--exclude", APPLY_MODELS]  # Capture's views
CREATE_VIEW = re.compile(r"create or replace view (lakerep_\w+\.\w+)")


def views_created(args: list[str]) -> set[str]:
    return {found.group(1) for _, sql, _ in invocation_statements(args) if (found := CREATE_VIEW.search(sql))}


@ONE_LANDING_ORDER
def test_a_view_is_created_again_only_when_its_definition_changed(spark, captured):
    """The cycles kept every view whose definition had not changed (restart_candidates and
    capture_window hold the run's literals, so a new run defines them anew); one whose recorded
    definition differs is created again, with SCHEMA EVOLUTION; a full refresh creates every view."""
    quarantine = relation_name("source_log_quarantine")
    assert views_created(VIEWS) <= {relation_name("restart_candidates"), relation_name("capture_window")}
    spark.sql(f"alter view {quarantine} set tblproperties ('lakerep_definition' = 'stale')")
    assert quarantine in views_created(VIEWS)
    described = spark.sql(f"describe table extended {quarantine}").collect()
    details = {row.col_name: row.data_type for row in described}
    assert details["View Schema Mode"] == "EVOLUTION"
    assert "lakerep_definition=stale" not in details["Table Properties"]
    assert quarantine not in views_created(VIEWS)
    every_view = dbt.invoke(["ls", *VIEWS[1:], "--resource-type", "model", "--output", "name"], quiet=True)
    assert views_created([*VIEWS, "--full-refresh"]) == {relation_name(name) for name in every_view.result}


def test_uow_table_holds_the_committed_uows_that_changed_registered_tables(spark, captured):
    oracle = captured.oracle
    registered = set(REGISTRATIONS)
    expected = {
        (uow.uow_id, uow.commit_position)
        for uow in oracle.committed_uows()
        if any(change.table in registered for change in uow.changes)
    }
    rows = spark.sql(f"select IBMSNAP_UOWID, IBMSNAP_COMMITSEQ from {relation_name('uow')}").collect()
    assert {(row[0], row[1]) for row in rows} == expected
    rolled_back = {
        row[0] for row in spark.sql(f"select IBMSNAP_UOWID from {relation_name('uow_rollbacks')}").collect()
    }
    assert rolled_back == set(oracle.rolled_back_uows())


def test_warm_start_holds_the_uows_still_open(spark, captured):
    rows = spark.sql(f"select UOWID, SEQ from {relation_name('warm_start')}").collect()
    landed_open = {}
    if captured.config.landing_order == "log":  # in commit order, open UOWs have not landed
        for change in captured.oracle.open_changes():
            landed_open[change.uow_id] = min(
                landed_open.get(change.uow_id, change.log_position), change.log_position
            )
    assert {row["UOWID"]: row["SEQ"] for row in rows if row["UOWID"] is not None} == landed_open
    if not landed_open:
        assert len(rows) == 1


def test_reading_every_cycle_again_changes_nothing(spark, captured):
    # Without its cycles' records (the state), the next run starts with null tokens: it reads the
    # whole log again, in a cycle numbered after every one its judged rows name.
    spark.sql(f"delete from {relation_name('capture_cycles')}")
    run_cycle(quiet=True, command="run", capture_only=True)
    check_against_oracle(spark, captured)
    for model in ["uow", *(cd_model_name(registration) for registration in REGISTRATIONS.values())]:
        table = relation_name(model)
        key = "IBMSNAP_COMMITSEQ" if model == "uow" else "IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION"
        duplicates = spark.sql(f"select {key} from {table} group by {key} having count(*) > 1").collect()
        assert duplicates == [], model
    outcome = dbt.invoke(["test", "--exclude", APPLY_MODELS], quiet=True)  # a Capture-only lake
    assert outcome.exit_code == 0
