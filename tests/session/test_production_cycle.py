"""What a production cycle of a session runs: no dbt when nothing landed since the last cycle,
the data tests with the first cycle and then every TEST_INTERVAL, never the unit tests (SPEC §9)."""

from __future__ import annotations

from lakerep.session import CycleReport, SessionStart, cycle_is_idle, data_tests_due, dbt_args, idle_cycle

LAST = CycleReport(
    cycle_number=7,
    run_id="s1-run",
    recovered=False,
    records_read=12_260,
    row_changes=10_852,
    uows_committed=1_333,
    synchpoint="000000000000000BE1A0",
    lag_seconds=2.5,
    pruned=True,
    up_to_batch=21,
)


def test_nothing_landed_since_the_last_cycle_is_idle():
    assert cycle_is_idle(LAST, highest_landed=21)


def test_a_new_landing_batch_is_work():
    assert not cycle_is_idle(LAST, highest_landed=22)


def test_a_cycle_that_finished_a_cut_off_one_is_followed_by_the_runs_own_cycle():
    recovered = CycleReport(**{**LAST.__dict__, "recovered": True})
    assert not cycle_is_idle(recovered, highest_landed=21)


def test_an_idle_cycle_reports_the_state_it_kept_and_nothing_read():
    report = idle_cycle(LAST)
    assert (report.cycle_number, report.synchpoint, report.up_to_batch) == (7, LAST.synchpoint, 21)
    assert (report.records_read, report.row_changes, report.uows_committed) == (0, 0, 0)
    assert report.idle and not report.pruned and not report.recovered
    assert report.line("s1") == (
        "session s1 cycle 7: idle, nothing landed since batch 21; synchpoint 000000000000000BE1A0"
    )


def test_a_production_cycle_runs_no_unit_tests():
    assert dbt_args(SessionStart("s1"), with_tests=True) == ["build", "--exclude-resource-type", "unit_test"]
    assert dbt_args(SessionStart("s1", dbt_command="run", capture_only=True), with_tests=True) == [
        "run",
        "--exclude",
        "path:models/apply",
    ]


def test_a_cycle_without_its_data_tests_due_runs_the_models_only():
    assert dbt_args(SessionStart("s1"), with_tests=False) == ["run"]
    assert dbt_args(SessionStart("s1", capture_only=True), with_tests=False) == [
        "run",
        "--exclude",
        "path:models/apply",
    ]


def test_data_tests_are_due_with_the_first_cycle_then_every_test_interval():
    assert data_tests_due(now=5.0, last_test=None, interval=3600)
    assert not data_tests_due(now=3000.0, last_test=0.0, interval=3600)
    assert data_tests_due(now=3600.0, last_test=0.0, interval=3600)
    assert data_tests_due(now=5.0, last_test=5.0, interval=0)


def test_a_cycle_line_says_when_the_data_tests_ran_and_passed():
    assert LAST.line("s1").endswith("lag 2.5 s; pruned")
    assert (
        CycleReport(**{**LAST.__dict__, "data_tests": True})
        .line("s1")
        .endswith("; pruned; data tests passed")
    )
    assert not idle_cycle(CycleReport(**{**LAST.__dict__, "data_tests": True})).data_tests
