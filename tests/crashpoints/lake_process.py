"""The crash points' own processes on a lake (LAKEREP_HOME), each with a JVM of its own:

base KIND   the lake a run of KIND starts from: the scenarios' driver lands a first workload, its
            snapshots, and runs until every set is APPLIED; then one cycle with the data tests
            (so the run under test keeps to its test interval), and a batch of changes landed for
            the run under test (for the refresh kind, a member's refresh asked and its source's
            snapshots landed; for the external kind, a member unloaded into by another tool and
            marked). The driver's journal goes in the lake, for `check`.
check KIND WHERE
            after a kill: the operator's restart (the same `lakerep run --once`, a warm run that
            finishes the cycle cut off), then the scenarios' checks against the oracle (targets,
            CD, CCD, UOW, register, restart tokens, pruning control, trace). Prints a line per
            check and CHECKS_PASSED; fails on the first that fails.
restart-then-crash KIND WHERE POINT BASE JOURNAL
            `check KIND WHERE` (none when WHERE is -), then the run under test again, on the base
            lake's files (BASE) in the same process, journaled to JOURNAL and killed at its
            durable step event POINT (next_run.py). Ends with an error if the run ends first.
"""

from __future__ import annotations

import sys
from pathlib import Path

from crashpoints import next_run

from lakerep import dbt
from lakerep.apply_commands import lake_home
from lakerep.cli import main as lakerep_main
from lakerep.lake import lake_session
from lakerep.scenarios.checks import check_lake
from lakerep.scenarios.driver import JOURNAL_FILE, MEMBERS, NO_PRUNE_DUE, SESSION, Driver, journaled_lake
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
CHECKS_PASSED = "every check passed"


# The kinds of run whose durable steps are crash points, as the note of each check names them.
KINDS = {
    "warm": "a warm cycle with changes",
    "refresh": "a cycle with changes that refreshes a member (a refresh while active)",
    "external": "a cycle with changes after an external refresh was marked",
}
REFRESHED = "customers_copy"  # the refresh kind's member: its source's snapshots land with the changes
EXTERNALLY_REFRESHED = "stock_copy"  # the external kind's: another tool unloads its source into it


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
        if kind == "refresh":
            driver.ask_refresh(REFRESHED, "refresh")
            driver.land_sales_snapshots()
        if kind == "external":
            driver.external_refresh(MEMBERS[EXTERNALLY_REFRESHED])
    driver.journal.save(SEED, SCHEDULE.landing_order, driver.home / JOURNAL_FILE)


def check(kind: str, crashed_at: str) -> None:
    _, journal, workload = journaled_lake()
    journal.crashes.append(f"{KINDS[kind]} killed at {crashed_at}")
    journal.crashed_work.append("warm run")
    with dbt.parse_once():
        for report in run_session(RESTART):
            print(report.line(SESSION), flush=True)
        journal.runs += 1
        for line in check_lake(workload, journal):
            print("check:", line, flush=True)
    print(CHECKS_PASSED, flush=True)


def restart_then_crash(kind: str, crashed_at: str, point: str, base_lake: str, journal: str) -> None:
    if crashed_at != "-":
        check(kind, crashed_at)
    spark, base = lake_session(), Path(base_lake)
    next_run.check_catalog_is_the_bases(spark, base)
    next_run.restore_files(base, lake_home())
    next_run.forget_the_lake(spark)
    next_run.halt_at(spark, Path(journal), int(point))
    lakerep_main.main(args=RUN_ARGUMENTS, standalone_mode=False)
    raise SystemExit(f"the run under test ended before its durable step event {point}")


if __name__ == "__main__":
    commands = {"base": base, "check": check, "restart-then-crash": restart_then_crash}
    commands[sys.argv[1]](*sys.argv[2:])
