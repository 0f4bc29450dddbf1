"""CDC session restarts (SPEC §4) against the oracle, in one lake, one scenario after another:
a warm start with transactions open, a run's later cycles (no new decision), a source new to
the session, an explicit override moving one source back, a condensed CCD read again, a special
override with CURRENT_RESTART, and a source log pruned past the restart point (warm turns cold,
warmns refuses)."""

from __future__ import annotations

import json
import os
import signal

import pytest
from capture.ccd_support import actual_ccd_history, actual_condensed_state, expected_ccd_history

from lakerep import dbt, landing
from lakerep.lake import reset_lake
from lakerep.registrations import load_registrations
from lakerep.scaffold import cd_model_name
from lakerep.session import SessionStart, StartRefused, run_session
from lakerep.summary import relation_name
from lakerep.workload.generator import Workload

pytestmark = pytest.mark.usefixtures("one_parse")  # the module's invocations share one dbt parse

SESSION = "scenarios"
RECORDS_PER_BATCH = 700
REGISTRATIONS = load_registrations()
LOWEST = "0" * 20


def warm(token_file=None, start_type="warm"):
    return run_session(
        SessionStart(SESSION, start_type, token_file, once=True, dbt_command="run", capture_only=True)
    )


def rows(spark, sql: str) -> list:
    for model in ("restart_decisions", "capture_window", "capture_cycles", "capture_trace", "capture_state"):
        sql = sql.replace("{" + model + "}", relation_name(model))
    return spark.sql(sql).collect()


def decisions_of_last_run(spark) -> dict[str, tuple]:
    found = rows(
        spark,
        "select * from {restart_decisions} where run_id = "
        "(select max_by(run_id, decided_at) from {restart_decisions})",
    )
    return {
        f"{row['source_owner']}.{row['source_table']}": (
            row["restart_rule"],
            row["restart1"],
            row["restart2"],
        )
        for row in found
    }


def state(spark) -> dict[str, tuple]:
    found = rows(spark, f"select * from {{capture_state}} where session_name = '{SESSION}'")
    return {
        f"{row['source_owner']}.{row['source_table']}": (row["restart1"], row["restart2"]) for row in found
    }


def last_window(spark) -> dict[str, str | None]:
    """Where each source of the last completed cycle read again from (None: the new batches only)."""
    found = rows(
        spark,
        "select * from {capture_cycles} where record_kind = 'source' and cycle_number = "
        "(select max(cycle_number) from {capture_cycles})",
    )
    return {f"{row['source_owner']}.{row['source_table']}": row["reread_from"] for row in found}


def assert_ccds_equal_the_oracle(spark, workload) -> None:
    synchpoint = max(workload.oracle.commit_positions())
    for name, registration in REGISTRATIONS.items():
        if registration.ccd_condensed:
            expected = workload.oracle.state_at(name, synchpoint)
            assert actual_condensed_state(spark, registration) == expected, name
        else:
            expected = expected_ccd_history(workload.oracle, registration, synchpoint)
            assert actual_ccd_history(spark, registration) == expected, name


def land(spark, workload) -> None:
    landing.land_log_records(spark, workload.next_batch(RECORDS_PER_BATCH).records)


@pytest.fixture(scope="module")
def workload(spark):
    reset_lake()
    workload = Workload(seed=57)
    land(spark, workload)
    warm()
    return workload


def test_warm_start_with_transactions_open_loses_and_doubles_nothing(spark, workload):
    open_at_stop = workload.oracle.open_uows()
    assert open_at_stop, "the stop should leave transactions open"
    land(spark, workload)
    before = state(spark)
    reports = warm()
    assert [report.recovered for report in reports] == [False]
    decided = decisions_of_last_run(spark)
    assert decided == {name: ("state", *tokens) for name, tokens in before.items()}
    assert set(last_window(spark).values()) == {None}  # nothing read again
    assert_ccds_equal_the_oracle(spark, workload)


def test_a_runs_later_cycles_make_no_restart_decision_and_write_none(spark, workload, monkeypatch):
    decision_commits = len(rows(spark, "describe history {restart_decisions}"))
    land(spark, workload)
    lines: list[str] = []

    def progress(line: str) -> None:
        lines.append(line)
        if len(lines) == 1:
            land(spark, workload)  # work for the run's second cycle
        else:
            os.kill(os.getpid(), signal.SIGTERM)  # the second cycle is the last

    start = SessionStart(
        SESSION, commit_interval=0, prune_interval=3600.0, dbt_command="run", capture_only=True
    )
    reports = run_session(start, progress=progress)
    assert [(report.recovered, report.idle) for report in reports] == [(False, False), (False, False)]
    run_id = reports[0].run_id
    decided = rows(spark, f"select count(*) as n from {{restart_decisions}} where run_id = '{run_id}'")
    assert decided[0]["n"] == len(REGISTRATIONS)  # decided once, in the run's first cycle
    # The second cycle wrote nothing to restart_decisions: one Delta commit for the whole run.
    assert len(rows(spark, "describe history {restart_decisions}")) == decision_commits + 1
    assert set(last_window(spark).values()) == {None}
    assert_ccds_equal_the_oracle(spark, workload)


def test_a_source_new_to_the_session_starts_at_the_oldest_available_point(spark, workload):
    # A table registered after the session last ran has no state row: take STOCK's away.
    rows(spark, "delete from {capture_cycles} where source_table = 'STOCK'")
    known = state(spark)
    land(spark, workload)
    warm()
    decided = decisions_of_last_run(spark)
    assert decided["INVENTORY.STOCK"] == ("oldest available", *min(known.values()))
    assert {decided[name][0] for name in known} == {"state"}
    assert_ccds_equal_the_oracle(spark, workload)


def test_an_explicit_override_moving_one_source_back_rereads_only_that_source(spark, workload, tmp_path):
    first_position = rows(spark, f"select min(log_position) as p from {landing.SOURCE_LOG_TABLE}")[0]["p"]
    token_file = tmp_path / "orders.tokens"
    token_file.write_text(f"SALES.ORDERS={first_position}\nSALES.ORDERS={LOWEST}\n", encoding="utf-8")
    land(spark, workload)
    warm(token_file)
    decided = decisions_of_last_run(spark)
    assert decided["SALES.ORDERS"] == ("explicit override", first_position, LOWEST)
    assert {rule for name, (rule, *_) in decided.items() if name != "SALES.ORDERS"} == {"state"}
    assert last_window(spark) == {
        name: (first_position if name == "SALES.ORDERS" else None) for name in decided
    }
    assert_ccds_equal_the_oracle(spark, workload)
    cd = relation_name("cd_sales__orders")
    doubled = spark.sql(
        f"select 1 from {cd} group by IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION having count(*) > 1"
    ).collect()
    assert doubled == []


def test_a_condensed_ccd_read_again_keeps_a_stored_row_that_is_later(spark, workload, tmp_path):
    """A condensed CCD replaces a key's stored row only with a later change: the condition of
    the CCD table's MERGE (lakerep_write_as later_by). Reading SALES.CUSTOMERS again from the
    log's first position meets every key's changes again; a row made later than all of them stays
    as it is, and every other key still equals the oracle."""
    ccd, ccd_rows = relation_name("ccd_sales__customers"), relation_name("ccd_rows")
    key_column = REGISTRATIONS["SALES.CUSTOMERS"].key_columns[0]
    original = spark.sql(
        f"select * from {ccd} where IBMSNAP_OPERATION != 'D' order by `{key_column}` limit 1"
    ).collect()[0]
    key, later = original[key_column], "9" * 20
    row = f"source_table = 'CUSTOMERS' and row_key = to_json(array('{key}'))"
    spark.sql(f"update {ccd_rows} set IBMSNAP_COMMITSEQ = '{later}' where {row}")
    first_position = rows(spark, f"select min(log_position) as p from {landing.SOURCE_LOG_TABLE}")[0]["p"]
    token_file = tmp_path / "customers.tokens"
    token_file.write_text(f"SALES.CUSTOMERS={first_position}\nSALES.CUSTOMERS={LOWEST}\n", encoding="utf-8")
    warm(token_file)  # nothing new landed: every change read is one the CCD holds
    assert last_window(spark)["SALES.CUSTOMERS"] == first_position
    kept = spark.sql(f"select IBMSNAP_COMMITSEQ from {ccd} where `{key_column}` = '{key}'").collect()
    assert [row[0] for row in kept] == [later]
    restored = original["IBMSNAP_COMMITSEQ"]
    spark.sql(f"update {ccd_rows} set IBMSNAP_COMMITSEQ = '{restored}' where {row}")
    assert_ccds_equal_the_oracle(spark, workload)


def test_a_token_file_whose_restart1_passes_committed_uows_is_refused(spark, workload, tmp_path):
    # RESTART1 after RESTART2 is the state's own shape when nothing was in flight; a token file
    # that puts committed UOWs of the source between the two would skip them silently.
    end_of_log = rows(spark, f"select max(log_position) as p from {landing.SOURCE_LOG_TABLE}")[0]["p"]
    token_file = tmp_path / "skipping.tokens"
    token_file.write_text(f"SALES.ORDERS={end_of_log}\nSALES.ORDERS={LOWEST}\n", encoding="utf-8")
    cycles_before = len(rows(spark, "select distinct cycle_number from {capture_cycles}"))
    with pytest.raises(
        StartRefused,
        match=r"ASN0124E .* SALES\.ORDERS \(explicit override\) have RESTART1 "
        rf"{end_of_log} after RESTART2 {LOWEST}, and \d+ UOWs that changed it commit between",
    ):
        warm(token_file)
    assert len(rows(spark, "select distinct cycle_number from {capture_cycles}")) == cycles_before


def test_a_special_override_with_current_restart_starts_at_the_end_of_the_log(spark, workload, tmp_path):
    end_of_log = rows(spark, f"select max(log_position) as p from {landing.SOURCE_LOG_TABLE}")[0]["p"]
    token_file = tmp_path / "current.tokens"
    token_file.write_text("RESTART1=CURRENT_RESTART\nRESTART2=CURRENT_RESTART\n", encoding="utf-8")
    orders = REGISTRATIONS["SALES.ORDERS"]
    history_before = actual_ccd_history(spark, orders)
    warm(token_file)
    decided = decisions_of_last_run(spark)
    assert set(decided.values()) == {("current restart", end_of_log, end_of_log)}
    land(spark, workload)
    warm()
    # ORDERS' history: what it held, then the UOWs committed after the end of the log as it was
    # (RESTART2); those in flight there stay whole, their earlier changes being in the CD table.
    synchpoint = max(workload.oracle.commit_positions())
    after = expected_ccd_history(workload.oracle, orders, synchpoint, after=end_of_log)
    assert after, "the next batch should commit changes to SALES.ORDERS"
    assert actual_ccd_history(spark, orders) == sorted(history_before + after, key=lambda row: row[:3])


def test_a_cold_start_cut_off_before_its_decision_is_a_cold_start_when_run_again(spark, workload):
    """The cold run judged the new batch (so it opened the cycle) and was cut off before its
    restart decision; the cold run after it decides for that cycle, and the cycle is a cold start:
    every source reads again from its decided RESTART1. Before the log is pruned (the next
    scenario): a cold start after it cannot bring back what the pruned log held."""
    land(spark, workload)
    cut_off = {"lakerep_run_id": "cut-off", "lakerep_session": SESSION, "lakerep_start": "cold"}
    dbt.invoke(["run", "--select", "+int_log_records_judged", "--vars", json.dumps(cut_off)], quiet=True)
    warm(start_type="cold")
    reread = last_window(spark)
    decided = decisions_of_last_run(spark)
    assert reread == {name: restart1 for name, (_, restart1, _) in decided.items()}
    assert None not in reread.values()
    assert_ccds_equal_the_oracle(spark, workload)


def test_a_pruned_log_turns_warm_cold_and_warmns_refuses(spark, workload):
    restart_points = state(spark)
    prune_below = rows(spark, f"select max(log_position) as p from {landing.SOURCE_LOG_TABLE}")[0]["p"]
    assert min(restart1 for restart1, _ in restart_points.values()) < prune_below
    # The log is gone below that point: its landed records and their judged copies (the log's
    # bounds are of both, int_log_bounds).
    spark.sql(f"delete from {landing.SOURCE_LOG_TABLE} where log_position < '{prune_below}'")
    judged = relation_name("int_log_records_judged")
    spark.sql(f"delete from {judged} where normalized_position < upper('{prune_below}')")
    cycles_before = len(rows(spark, "select distinct cycle_number from {capture_cycles}"))

    with pytest.raises(StartRefused, match="no longer in the source log") as refused:
        warm(start_type="warmns")
    assert "--start cold" in str(refused.value)
    assert len(rows(spark, "select distinct cycle_number from {capture_cycles}")) == cycles_before

    land(spark, workload)
    warm()
    decided = decisions_of_last_run(spark)
    assert {rule for rule, *_ in decided.values()} == {"automatic cold start"}
    assert {restart1 for _, restart1, _ in decided.values()} == {prune_below}
    traced = rows(
        spark, "select OPERATION, DESCRIPTION from {capture_trace} where OPERATION in ('COLD', 'ERROR')"
    )
    assert any(row[0] == "COLD" and row[1].startswith("ASN0102W") for row in traced)
    assert any(row[0] == "ERROR" and row[1].startswith("ASN0122E") for row in traced)
    # The cold start discarded the CD rows and read the log again from its oldest position.
    for registration in REGISTRATIONS.values():
        cd = relation_name(cd_model_name(registration))
        oldest = spark.sql(f"select min(IBMSNAP_INTENTSEQ) from {cd}").collect()[0][0]
        assert oldest is None or oldest >= prune_below, registration.qualified_name


def one(spark, sql: str):
    return spark.sql(sql).collect()[0][0]


def test_without_a_warm_start_row_capture_resynchronises_from_the_register(spark, workload):
    cycles = relation_name("capture_cycles")
    last = one(spark, f"select max(cycle_number) from {cycles}")
    synchpoint = one(spark, f"select SYNCHPOINT from {relation_name('register')} where GLOBAL_RECORD = 'Y'")
    # As if the last cycle had left no usable warm-start row (seed 002): neither the UOWs in
    # flight nor the row without a UOW.
    spark.sql(f"delete from {cycles} where cycle_number = {last} and record_kind = 'in_flight'")
    spark.sql(f"update {cycles} set resync_position = null where cycle_number = {last}")
    land(spark, workload)
    warm()
    resynchronised = rows(
        spark,
        "select resync_source, previous_resync_position from {capture_cycles} "
        f"where record_kind = 'cycle' and cycle_number > {last}",
    )
    assert [tuple(row) for row in resynchronised] == [("register", synchpoint)]
    assert spark.sql(f"select count(*) from {relation_name('warm_start')}").collect()[0][0] >= 1
