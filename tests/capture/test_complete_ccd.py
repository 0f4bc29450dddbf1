"""Complete and noncomplete CCDs (SPEC §3) when capture starts after the source's past: a
complete CCD takes the rows of a source snapshot that was unloaded while changes went on, and
ends equal to the oracle's whole table, however often the unload landed and even when the run
that first judged the unload's batch was cut off before it judged the unload; a noncomplete CCD
holds only what changed."""

from __future__ import annotations

import json

import pytest
from ccd_support import actual_ccd_history, actual_condensed_state, expected_ccd_history, global_synchpoint

from lakerep import dbt, landing
from lakerep.lake import reset_lake
from lakerep.pipeline import run_cycle
from lakerep.registrations import load_registrations
from lakerep.workload.generator import Workload

pytestmark = pytest.mark.usefixtures("one_parse")  # the module's invocations share one dbt parse

REGISTRATIONS = load_registrations()


@pytest.fixture(scope="module")
def captured(spark):
    reset_lake()
    workload = Workload(seed=31)
    workload.next_batch(1_500)  # the source's past, before the log that capture reads
    workload.close_open_transactions()
    cut = max(workload.oracle.commit_positions())
    first = workload.next_batch(600)
    unload_start = first.records[len(first.records) // 3]["log_position"]
    snapshots = {
        name: workload.snapshot(name, unload_start, first.log_end_position)
        for name, registration in REGISTRATIONS.items()
        if registration.ccd_complete
    }
    landing.land_log_records(spark, first.records)
    for snapshot in snapshots.values():
        landing.land_snapshot_rows(spark, snapshot.to_landing_rows())
        landing.land_snapshot_rows(spark, snapshot.to_landing_rows())  # a retried landing: counts once
    # A run cut off after the log's judging, before the unloads': the next run finishes its cycle
    # and takes the unloads of the cycle's batches with it.
    cut_off = {"lakerep_run_id": "cut-off"}
    dbt.invoke(["run", "--select", "+int_log_records_judged", "--vars", json.dumps(cut_off)], quiet=True)
    run_cycle(quiet=True, command="run", capture_only=True)
    landing.land_log_records(spark, workload.next_batch(600).records)
    run_cycle(quiet=True, command="run", capture_only=True)
    return workload, cut, snapshots


def changed_keys(oracle, table: str, after: str) -> set[tuple]:
    keys = set()
    for change in oracle.history(table, after=after):
        keys.update({change.key, change.before_key} - {None})
    return keys


def test_a_complete_condensed_ccd_holds_the_whole_table(spark, captured):
    workload, _, snapshots = captured
    synchpoint = global_synchpoint(spark)
    for name, registration in REGISTRATIONS.items():
        if registration.ccd_complete and registration.ccd_condensed:
            expected = workload.oracle.state_at(name, synchpoint)
            assert len(expected) > len(snapshots[name].rows) // 2 > 0
            assert actual_condensed_state(spark, registration) == expected, name


def test_a_noncomplete_condensed_ccd_holds_only_the_rows_that_changed(spark, captured):
    workload, cut, _ = captured
    synchpoint = global_synchpoint(spark)
    for name, registration in REGISTRATIONS.items():
        if registration.ccd_condensed and not registration.ccd_complete:
            state = workload.oracle.state_at(name, synchpoint)
            expected = {key: state[key] for key in changed_keys(workload.oracle, name, cut) if key in state}
            assert 0 < len(expected) < len(state), name
            assert actual_condensed_state(spark, registration) == expected, name


def test_a_complete_history_ccd_starts_with_the_snapshot_rows(spark, captured):
    workload, cut, snapshots = captured
    synchpoint = global_synchpoint(spark)
    for name, registration in REGISTRATIONS.items():
        if registration.ccd_complete and not registration.ccd_condensed:
            snapshot = snapshots[name]
            start = snapshot.unload_start_position
            base = [(start, start, "I", dict(row)) for row in snapshot.rows]
            expected = base + expected_ccd_history(workload.oracle, registration, synchpoint, after=cut)
            actual = actual_ccd_history(spark, registration)
            assert sorted(map(repr, actual)) == sorted(map(repr, expected)), name


def test_a_noncomplete_history_ccd_holds_the_changes_it_captured(spark, captured):
    workload, cut, _ = captured
    synchpoint = global_synchpoint(spark)
    for name, registration in REGISTRATIONS.items():
        if not registration.ccd_complete and not registration.ccd_condensed:
            expected = expected_ccd_history(workload.oracle, registration, synchpoint, after=cut)
            assert expected, name
            assert actual_ccd_history(spark, registration) == expected, name


def test_every_change_of_a_ccd_belongs_to_a_held_uow_and_no_snapshot_row_is_asked(spark, captured):
    """The data test lakerep_commit_in_uow passes: the snapshot rows' commit position is their
    unload's start, here a change's position and no UOW's commit, so they are no UOW's rows."""
    outcome = dbt.invoke(["test", "--select", "test_name:lakerep_commit_in_uow"], check=False, quiet=True)
    assert outcome.exit_code == dbt.EXIT_OK and outcome.result.results, [
        (result.node.name, str(result.status)) for result in outcome.result.results
    ]
