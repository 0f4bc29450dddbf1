"""The kinds of run on the scenarios' workload (lakerep.scenarios.driver) whose durable steps are
crash points: each one's base lake, its `lakerep` command, and the operator's restart after a kill,
then the scenarios' checks against their oracle, which their tamper tests show can fail."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from lakerep import apply_commands, dbt
from lakerep.cli import main as lakerep_main
from lakerep.scenarios.checks import check_lake
from lakerep.scenarios.driver import JOURNAL_FILE, MEMBERS, NO_PRUNE_DUE, SESSION, Driver, journaled_lake
from lakerep.scenarios.schedule import Schedule
from lakerep.session import SessionStart, run_session

SEED = 64
SCHEDULE = Schedule(seed=SEED, landing_order="log", first_records=300, steps=())
CHANGES = 150  # records landed for the run under test
# The base's data tests passed: a warm run tests again only after a recovered cycle.
NO_TEST_DUE = ["--prune-interval", str(NO_PRUNE_DUE), "--test-interval", "1e9"]
REFRESHED = "customers_copy"  # the refresh kind's member: its source's snapshots land with the changes
EXTERNALLY_REFRESHED = "stock_copy"  # the external kind's: another tool unloads its source into it


def lakerep(arguments: list[str]) -> None:
    """A `lakerep` command, in this process, as the command line runs it."""
    lakerep_main.main(args=arguments, standalone_mode=False)


@dataclass(frozen=True)
class ScenarioKind:
    """A run on the scenarios' workload: its base is the scenarios' first workload run until every
    set is APPLIED, one cycle with the data tests, `changes` records landed and `prepare`'s work;
    the restart after a kill is `restart` (default: the command under test again)."""

    description: str
    start: str = "warm"  # the run's start type, as the journal names its work
    changes: int = CHANGES
    prepare: Callable[[Driver], None] = lambda driver: None
    command: Callable[[Path], list[str]] = lambda home: ["run", "--session", SESSION, "--once", *NO_TEST_DUE]
    restart: Callable[[Path], list[list[str]]] | None = None
    settles: bool = False  # after the restart, the scenario's clean runs until every set is APPLIED

    chained = True  # a point may follow another's restart in one process (next_run.py)

    def arguments(self, home: Path) -> list[str]:
        return self.command(home)

    def base(self) -> None:
        driver = Driver(SCHEDULE, min_crashes=0)
        with dbt.parse_once():
            driver.play(print)
            run_session(SessionStart(SESSION, once=True, prune_interval=NO_PRUNE_DUE, dbt_command="build"))
            driver.journal.runs += 1
            if self.changes:
                driver.land(self.changes)
                driver.resolve_waits()
            self.prepare(driver)
        driver.journal.save(SEED, SCHEDULE.landing_order, driver.home / JOURNAL_FILE)

    def before_run(self) -> None:
        """Nothing outside the lake to restore."""

    def restart_and_check(self, crashed_at: str) -> Iterator[str]:
        home = apply_commands.lake_home()
        _, journal, workload = journaled_lake()
        journal.crashes.append(f"{self.description} killed at {crashed_at}")
        journal.crashed_work.append(f"{self.start} run" if self.command(home)[0] == "run" else "prune")
        with dbt.parse_once():
            for command in self.restart(home) if self.restart else [self.command(home)]:
                cold = "cold" in command  # --start cold
                if command[0] == "prune":
                    journal.prunes += 1
                else:
                    journal.runs += 1
                if cold:  # at the end of the log still: nothing landed since the killed one started
                    journal.cold_positions.append(workload.oracle.commit_positions()[-1])
                lakerep(command)
                if cold:
                    journal.cold_starts += 1
            if self.settles:
                driver = Driver(SCHEDULE, min_crashes=0)
                driver.workload, driver.journal = workload, journal
                driver.settle()
            yield from check_lake(workload, journal)


def _refresh(driver: Driver) -> None:
    driver.ask_refresh(REFRESHED, "refresh")
    driver.land_sales_snapshots()


def _external(driver: Driver) -> None:
    driver.external_refresh(MEMBERS[EXTERNALLY_REFRESHED])


def _cold_start_at_the_end_of_the_log(driver: Driver) -> None:
    """The changes land with every transaction ended (finish), and the cold start's token file is
    written: a cold start there loses nothing (Driver.cold_start_tokens)."""
    driver.land(CHANGES, finish=True)
    driver.cold_start_tokens()


def _cold(home: Path) -> list[str]:
    tokens = str(home / "scenario-cold.tokens")
    return ["run", "--session", SESSION, "--start", "cold", "--token-file", tokens, "--once", *NO_TEST_DUE]


def _recover(home: Path) -> list[str]:
    return ["run", "--session", SESSION, "--start", "recover", "--token-file", str(home / "recovered.tokens")]


def _recover_then_run(home: Path) -> list[list[str]]:
    """The recover again, then the warm run that reads its token file, as an operator goes on."""
    tokens = str(home / "recovered.tokens")
    return [_recover(home), ["run", "--session", SESSION, "--once", "--token-file", tokens, *NO_TEST_DUE]]


# The scenario kinds, as the checks' notes name them.
SCENARIO_KINDS = {
    "warm": ScenarioKind("a warm cycle with changes"),
    "refresh": ScenarioKind(
        "a cycle with changes that refreshes a member (refresh while active)", prepare=_refresh
    ),
    "external": ScenarioKind("a cycle with changes after an external refresh was marked", prepare=_external),
    "prune": ScenarioKind(
        "a prune of the CD and UOW tables (lakerep prune)", changes=0, command=lambda home: ["prune"]
    ),
    "cold": ScenarioKind(
        "a cold start at the end of the log, then runs until every set is applied again",
        start="cold",
        changes=0,
        prepare=_cold_start_at_the_end_of_the_log,
        command=_cold,
        settles=True,
    ),
    "recover": ScenarioKind(
        "a recover run writing the token file, then the warm run reading it",
        start="recover",
        command=_recover,
        restart=_recover_then_run,
    ),
}
