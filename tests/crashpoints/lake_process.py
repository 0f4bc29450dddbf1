"""The crash points' own processes on a lake (LAKEREP_HOME), each with a JVM of its own, for a
kind of run (run_kinds.KINDS):

base KIND   the lake a run of KIND starts from (run_kinds: the kind's base).
check KIND WHERE
            after a kill: the operator's restart (the command under test again, or what the kind
            says follows it), then the kind's checks against the oracle. Prints a line per check
            and CHECKS_PASSED; fails on the first that fails.
restart-then-crash KIND WHERE POINT BASE JOURNAL
            `check KIND WHERE` (none when WHERE is -), then the run under test again, on the base
            lake's files (BASE) in the same process, journaled to JOURNAL and killed at its
            durable step event POINT (next_run.py). Ends with an error if the run ends first.
"""

from __future__ import annotations

import sys
from pathlib import Path

from crashpoints import next_run
from crashpoints.run_kinds import KINDS
from crashpoints.scenario_kinds import lakerep

from lakerep.apply_commands import lake_home
from lakerep.lake import lake_session

CHECKS_PASSED = "every check passed"


def base(kind: str) -> None:
    if kind not in KINDS:
        raise SystemExit(f"no run kind {kind!r}: one of {', '.join(KINDS)}")
    KINDS[kind].base()


def check(kind: str, crashed_at: str) -> None:
    for line in KINDS[kind].restart_and_check(crashed_at):
        print("check:", line, flush=True)
    print(CHECKS_PASSED, flush=True)


def restart_then_crash(kind: str, crashed_at: str, point: str, base_lake: str, journal: str) -> None:
    if crashed_at != "-":
        check(kind, crashed_at)
    spark, base = lake_session(), Path(base_lake)
    next_run.check_catalog_is_the_bases(spark, base)
    KINDS[kind].before_run()
    next_run.restore_files(base, lake_home())
    next_run.forget_the_lake(spark)
    next_run.halt_at(spark, Path(journal), int(point))
    lakerep(KINDS[kind].arguments(lake_home()))
    raise SystemExit(f"the run under test ended before its durable step event {point}")


if __name__ == "__main__":
    commands = {"base": base, "check": check, "restart-then-crash": restart_then_crash}
    commands[sys.argv[1]](*sys.argv[2:])
