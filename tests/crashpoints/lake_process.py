"""The crash points' own processes on a lake (LAKEREP_HOME), each with a JVM of its own:

base KIND   the lake a run of KIND starts from: the scenarios' driver lands a first workload, its
            snapshots, and runs until every set is APPLIED; then one cycle with the data tests
            (so the run under test keeps to its test interval), and a batch of changes landed for
            the run under test. The driver's journal goes in the lake, for `check`.
check KIND WHERE
            after a kill: the operator's restart (the same `lakerep run --once`), which finishes
            the cycle cut off and then runs its own, then a clean warm run, then the scenarios'
            checks against the oracle (targets, CD, CCD, UOW, register, restart tokens, pruning
            control, trace). Prints a line per check; fails on the first that fails.
"""

from __future__ import annotations

import sys

from lakerep import dbt
from lakerep.scenarios.checks import check_lake
from lakerep.scenarios.driver import JOURNAL_FILE, NO_PRUNE_DUE, SESSION, Driver, journaled_lake
from lakerep.scenarios.schedule import Schedule
from lakerep.session import SessionStart, run_session

SEED = 64
SCHEDULE = Schedule(seed=SEED, landing_order="log", first_records=300, steps=())
CHANGES = 150  # records landed for the run under test
TEST_INTERVAL = 1e9  # the base's data tests passed: a run tests again only after a recovered cycle
# The run under test, and the operator's restart, the same command: `lakerep run --once`, no prune due.
RUN_ARGUMENTS = ["run", "--session", SESSION, "--once", "--prune-interval", str(NO_PRUNE_DUE),
                 "--test-interval", str(TEST_INTERVAL)]  # fmt: skip
RESTART = SessionStart(SESSION, once=True, prune_interval=NO_PRUNE_DUE, test_interval=TEST_INTERVAL)


# The kinds of run whose durable steps are crash points, as the note of each check names them.
KINDS = {
    "warm": "a warm cycle with changes",
}


def base(kind: str) -> None:
    if kind not in KINDS:
        raise SystemExit(f"no run kind {kind!r}: one of {', '.join(KINDS)}")
    driver = Driver(SCHEDULE, min_crashes=0)
    with dbt.parse_once():
        driver.play(print)
        run_session(SessionStart(SESSION, once=True, prune_interval=NO_PRUNE_DUE, dbt_command="build"))
        driver.journal.runs += 1
        driver.land(CHANGES)
        driver.resolve_waits()
    driver.journal.save(SEED, SCHEDULE.landing_order, driver.home / JOURNAL_FILE)


def check(kind: str, crashed_at: str) -> None:
    _, journal, workload = journaled_lake()
    journal.crashes.append(f"{KINDS[kind]} killed at {crashed_at}")
    journal.crashed_work.append("warm run")
    with dbt.parse_once():
        for _ in range(2):  # the operator's restart, then a clean warm run
            for report in run_session(RESTART):
                print(report.line(SESSION), flush=True)
            journal.runs += 1
        for line in check_lake(workload, journal):
            print("check:", line, flush=True)


if __name__ == "__main__":
    {"base": base, "check": check}[sys.argv[1]](*sys.argv[2:])
