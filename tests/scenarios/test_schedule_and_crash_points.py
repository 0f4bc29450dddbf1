"""The scenario machinery without Spark: schedules drawn from a seed, crash points counted in
SQL statements (lakerep.scenarios.schedule, lakerep.scenarios.crash)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from types import SimpleNamespace

import pytest

from lakerep.scenarios import FIXED_SEEDS
from lakerep.scenarios.crash import (
    CrashInjector,
    InjectedCrash,
    forget_a_killed_runners_settings,
    leave_a_killed_runners_lock,
)
from lakerep.scenarios.schedule import EVENTS, EVENTS_WITH_OWN_WORK, MIN_CRASHES, draw_schedule
from lakerep.session_lock import SessionActive, lock_path, refuse_if_active, session_lock


def event(name: str, sql: str = "select 1", node: str = "model.lakerep.register"):
    return SimpleNamespace(
        info=SimpleNamespace(name=name),
        data=SimpleNamespace(
            sql=sql, node_info=SimpleNamespace(unique_id=node), run_result=SimpleNamespace(status="success")
        ),
    )


def test_the_same_seed_draws_the_same_schedule():
    assert draw_schedule(7) == draw_schedule(7)
    assert draw_schedule(7) != draw_schedule(8)


@pytest.mark.parametrize("seed", FIXED_SEEDS)
def test_every_fixed_schedule_has_enough_crash_points(seed):
    schedule = draw_schedule(seed)
    assert sum(step.crash_fraction is not None for step in schedule.steps) >= MIN_CRASHES
    assert all(step.event in EVENTS for step in schedule.steps)
    assert all(0 < step.crash_fraction <= 1 for step in schedule.steps if step.crash_fraction is not None)


def test_the_fixed_set_covers_every_event():
    drawn = {step.event for seed in FIXED_SEEDS for step in draw_schedule(seed).steps}
    assert drawn == set(EVENTS)


def test_crash_points_fall_in_the_runs_and_in_the_work_of_prune_and_recover():
    steps = [step for seed in FIXED_SEEDS for step in draw_schedule(seed).steps]
    assert all(step.event in EVENTS_WITH_OWN_WORK for step in steps if step.crash_in_event)
    assert {step.event for step in steps if step.crash_in_event} == set(EVENTS_WITH_OWN_WORK)
    crashing = [step.crash_fraction for seed in range(1, 201) for step in draw_schedule(seed).steps]
    assert min(fraction for fraction in crashing if fraction is not None) < 0.02  # first statements too


def test_a_killed_runners_lock_is_taken_over_and_keeps_no_command_waiting(tmp_path):
    leave_a_killed_runners_lock(tmp_path, "scenario")
    assert lock_path(tmp_path, "scenario").exists()
    refuse_if_active(tmp_path)  # a dead runner's lock: refresh, marks and prune go ahead
    with session_lock(tmp_path, "scenario"), pytest.raises(SessionActive):
        refuse_if_active(tmp_path)
    assert not lock_path(tmp_path, "scenario").exists()


def test_an_aborted_runners_statement_settings_go_as_a_kills_would():
    """An abort between the SET of txnAppId and that of txnVersion left txnAppId on the session
    the scenario keeps (seed 4): the settings a runner's statements SET go; the session's own stay."""
    settings = {
        "spark.databricks.delta.write.txnAppId": "lakerep-capture:run",
        "spark.sql.shuffle.partitions": "2",
    }
    spark = SimpleNamespace(conf=SimpleNamespace(unset=lambda key: settings.pop(key, None)))
    forget_a_killed_runners_settings(spark)
    assert settings == {"spark.sql.shuffle.partitions": "2"}


def test_an_abort_crash_point_fails_its_statement_and_every_later_one():
    injector = CrashInjector(at=3)
    injector(event("MainReportVersion"))  # not a statement
    injector(event("SQLQuery"))
    injector(event("SQLQuery"))
    assert not injector.fired
    where = re.escape("statement 3, in model.lakerep.apply_trail: merge into")
    with pytest.raises(InjectedCrash, match=where):
        injector(event("SQLQuery", "merge into x\nusing y", "model.lakerep.apply_trail"))
    with pytest.raises(InjectedCrash):
        injector(event("SQLQuery", "insert into z"))
    assert injector.fired and injector.statements == 4


def test_a_node_failing_before_the_crash_point_is_told_apart_from_the_crash():
    injector = CrashInjector(at=2)
    injector(event("SQLQuery"))
    failed = SimpleNamespace(
        info=SimpleNamespace(name="NodeFinished"),
        data=SimpleNamespace(
            run_result=SimpleNamespace(status="error"), node_info=SimpleNamespace(unique_id="m")
        ),
    )
    injector(failed)
    with pytest.raises(InjectedCrash):
        injector(event("SQLQuery"))
    injector(failed)  # failing because of the crash: not counted
    assert injector.failed_before == ["m"]


def test_an_injector_without_a_crash_point_only_counts_statements():
    counter = CrashInjector(at=None)
    for name in ("SQLQuery", "SQLQueryStatus", "SQLQuery", "NodeFinished"):
        counter(event(name))
    assert counter.statements == 2


@pytest.mark.parametrize("bad", [{"at": 0}, {"at": 2, "mode": "pause"}])
def test_a_crash_point_must_be_a_statement_and_a_known_mode(bad):
    with pytest.raises(ValueError):
        CrashInjector(**bad)


def test_a_kill_crash_point_kills_the_process_group():
    script = (
        "from types import SimpleNamespace as S\n"
        "from lakerep.scenarios.crash import CrashInjector\n"
        "crash = CrashInjector(at=2, mode='kill')\n"
        "e = S(info=S(name='SQLQuery'), data=S(sql='select 1', node_info=S(unique_id='n')))\n"
        "crash(e); print('first statement ran', flush=True); crash(e); print('never printed')\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, start_new_session=True, timeout=60
    )
    assert child.returncode == -signal.SIGKILL
    assert child.stdout == "first statement ran\n"
