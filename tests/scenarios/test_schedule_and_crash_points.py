"""The scenario machinery without Spark: schedules drawn from a seed, crash points counted in
SQL statements (lakerep.scenarios.schedule, lakerep.scenarios.crash)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from types import SimpleNamespace

import pytest

from lakerep import dbt
from lakerep.scenarios import FIXED_SEEDS
from lakerep.scenarios.crash import (
    CrashInjector,
    InjectedCrash,
    forget_a_killed_runners_settings,
    leave_a_killed_runners_lock,
)
from lakerep.scenarios.driver import TRIES, Driver, try_label
from lakerep.scenarios.schedule import (
    CRASH_KINDS,
    EVENTS,
    EVENTS_WITH_OWN_WORK,
    MIN_CRASHES,
    Schedule,
    draw_schedule,
)
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


def test_every_kind_of_crash_point_is_drawn():
    """Warm, cold and recover runs, prunes and retention prunes."""
    drawn = {step.crash_kind for seed in FIXED_SEEDS for step in draw_schedule(seed).steps}
    assert drawn - {None} == set(CRASH_KINDS)


def driver_with_work(*work: tuple[str, int]) -> Driver:
    driver = Driver(Schedule(seed=1, landing_order="log", first_records=10, steps=()))
    driver.journal.complete_work.extend(work)
    return driver


def test_a_crash_point_is_a_share_of_the_last_complete_work_of_its_kind():
    """A cold run sends fewer statements than a warm one: with one estimate for every run, seeds
    2 and 6's cold-run crash points fell past the run's end."""
    driver = driver_with_work(("warm run", 160), ("warm run", 230), ("cold run", 120), ("warm run", 220))
    assert driver.estimate("warm run") == 220
    assert driver.estimate("cold run") == 120
    assert driver.estimate("recover run") == 230  # none yet: the most of any run
    assert driver.estimate("prune") == 60  # no prune counted yet: a guess
    driver.journal.complete_work.append(("retention prune", 31))
    assert driver.estimate("prune") == 31


def sends_statements(count: int):
    def work():
        for _ in range(count):
            for callback in list(dbt.EVENT_CALLBACKS):
                callback(event("SQLQuery"))

    return work


def test_a_crash_point_past_the_works_end_is_journaled_as_lost():
    driver = driver_with_work(("warm run", 100))
    crashed, statements, _ = driver.crashing("step 2, warm run", "warm run", 0.9, sends_statements(60))
    assert (crashed, statements) == (False, 60)
    assert driver.journal.crashes == []
    assert driver.journal.lost_crashes == ["step 2, warm run: statement 90, after its 60"]
    assert driver.crashing("step 3, warm run", "warm run", None, sends_statements(60))[0] is False
    assert len(driver.journal.lost_crashes) == 1  # no crash point: nothing lost


@pytest.fixture
def driver_without_a_lake(monkeypatch):
    """A driver whose landings and set checks are only counted, and whose crashes unset
    settings on a stand-in session."""
    driver = driver_with_work(("warm run", 100), ("cold run", 60))
    landed = []
    monkeypatch.setattr(driver, "land", lambda records, finish=False: landed.append(finish))
    monkeypatch.setattr(driver, "resolve_waits", lambda: None)
    session = SimpleNamespace(conf=SimpleNamespace(unset=lambda key: None))
    monkeypatch.setattr("lakerep.scenarios.driver.lake_session", lambda: session)
    driver.landed = landed
    return driver


def work_sending(driver, *counts: int, kind: str = "cold run"):
    """Work of `kind` sending counts[0] statements on its first try, counts[1] on the second...; as
    dbt does, a statement failing ends the invocation with DbtFailed, and as Driver.run does,
    complete work is counted."""
    sent = iter(counts)

    def statements() -> None:
        try:
            sends_statements(next(sent))()
        except InjectedCrash as crash:
            raise dbt.DbtFailed(["run"], 2, str(crash)) from crash

    def work(attempt: int, share: float | None) -> bool:
        crashed, count, _ = driver.crashing(f"{kind}{try_label(attempt)}", kind, share, statements)
        if not crashed:
            driver.journal.complete_work.append((kind, count))
        return crashed

    return work


def test_work_ending_before_its_crash_point_runs_again_and_crashes(driver_without_a_lake):
    driver = driver_without_a_lake
    # a point at 54 of the 60 of the last cold run, then at 45 of the first try's 50
    assert driver.try_to_its_point(work_sending(driver, 50, 50), 0.9, finish=True) is True
    assert driver.landed == [True]
    assert driver.journal.lost_crashes == []
    assert driver.journal.crashed_work == ["cold run"]
    assert driver.journal.crashes == ["cold run, try 2: statement 45, in model.lakerep.register: select 1"]
    assert driver.journal.events == ["try 2 after a miss: cold run: statement 54, after its 50"]


def test_a_third_try_places_its_point_from_a_second_like_it(driver_without_a_lake):
    """Seed 8: the first recover run finished a cut-off cycle (119 statements), the second had
    none to finish (90, short of its point at 116); the third, like the second but not the same
    (85), crashes at 90 % of the second's (81), not at 97 % (88)."""
    driver = driver_without_a_lake
    driver.journal.complete_work.append(("warm run", 206))  # the first run, on an empty lake
    work = work_sending(driver, 119, 90, 85, kind="recover run")
    assert driver.try_to_its_point(work, 0.97) is True
    assert driver.landed == [False, False]
    assert driver.journal.crashes == ["recover run, try 3: statement 81, in model.lakerep.register: select 1"]
    assert driver.journal.events == [
        "try 2 after a miss: recover run: statement 200, after its 119",
        "try 3 after a miss: recover run, try 2: statement 116, after its 90",
    ]
    assert driver.journal.lost_crashes == []


def test_a_point_the_last_try_misses_too_stays_lost(driver_without_a_lake):
    driver = driver_without_a_lake
    assert driver.try_to_its_point(work_sending(driver, 50, 30, 20), 0.9) is False
    assert len(driver.landed) == TRIES - 1
    assert driver.journal.lost_crashes == ["cold run, try 3: statement 27, after its 20"]
    assert driver.journal.events == [
        "try 2 after a miss: cold run: statement 54, after its 50",
        "try 3 after a miss: cold run, try 2: statement 45, after its 30",
    ]


@pytest.mark.parametrize("fraction", [None, 0.5])
def test_work_without_a_point_or_crashing_at_it_runs_once(driver_without_a_lake, fraction):
    driver = driver_without_a_lake
    assert driver.try_to_its_point(work_sending(driver, 50, 50), fraction) is (fraction is not None)
    assert driver.landed == []
    assert driver.journal.lost_crashes == []


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
