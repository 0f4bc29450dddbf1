"""Runs one scenario on the lake of this process (SPEC §7): the workload lands batch by batch,
runners start warm, cold or recover and crash at their drawn points, refreshes and prunes happen
in between; a final clean warm run, then the checks (lakerep.scenarios.checks).

Runners run in this process (crash mode abort, lakerep.scenarios.crash): a JVM start per runner
would cost more than the scenario. Everything else goes through the same functions the `lakerep`
commands call.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lakerep import apply_commands, dbt, landing
from lakerep.lake import lake_session, reset_lake
from lakerep.scenarios.crash import (
    CrashInjector,
    forget_a_killed_runners_settings,
    injected,
    leave_a_killed_runners_lock,
)
from lakerep.scenarios.schedule import EVENTS_WITH_OWN_WORK, MIN_CRASHES, Schedule, Step, draw_schedule
from lakerep.session import SessionStart, run_session
from lakerep.subscriptions import Member, load_members
from lakerep.summary import relation_name
from lakerep.token_file import CURRENT_RESTART, TokenPair, write_token_file
from lakerep.workload.config import WorkloadConfig
from lakerep.workload.generator import Workload
from lakerep.workload.snapshot import Snapshot

SESSION = "scenario"
MEMBERS = {member.target_table: member for member in load_members()}
REFRESHABLE_SOURCES = sorted({m.source for m in MEMBERS.values() if not m.registration.disable_refresh})
SETTLE_RUNS = 4  # clean warm runs, at most, for every set to be APPLIED at the end
# PRUNE_INTERVAL of the scenario's runs: its prunes are its own drawn events (and the checks
# bound each), so no run finds one due on its own.
NO_PRUNE_DUE = 1e9
# A prune's statements until one is counted: guessed high, since work that ends before its crash
# point runs again (Driver.try_to_its_point), and a low guess never reaches a prune's last statements
# (a retention prune sent 57, seed 6, 2026-11-28).
PRUNE_STATEMENTS_GUESS = 60
# Tries, in all, of work that ends before its crash point (Driver.try_to_its_point): the first may
# differ from those after it, which are alike (a small batch, nothing cut off to finish), but
# not the same: seed 8's second and third recover runs sent 90 and 85 statements. So the last
# try's point is at most this share of what the try before it sent.
TRIES = 3
LAST_TRY_SHARE = 0.9
JOURNAL_FILE = "scenario-journal.json"  # in the lake's home, written before the checks


class ScenarioFailed(AssertionError):
    """A scenario broke a check; the message names the seed and the command reproducing it."""


def crash_share(fraction: float | None, attempt: int) -> float | None:
    """The share of its estimate at which a try of work crashes (try_to_its_point): the drawn
    fraction, at most LAST_TRY_SHARE on the last try."""
    if fraction is None or attempt < TRIES:
        return fraction
    return min(fraction, LAST_TRY_SHARE)


def try_label(attempt: int) -> str:
    """The suffix naming a try in a crash point's label: none for the first (try_to_its_point)."""
    return "" if attempt == 1 else f", try {attempt}"


def reproduce_command(seed: int) -> str:
    return f"lakerep scenarios --seed {seed}"


@dataclass
class Journal:
    """What the scenario did, for the checks and for the report."""

    crashes: list[str] = field(default_factory=list)
    crashed_work: list[str] = field(default_factory=list)  # the kind of work each crash cut off
    # crash points a run or prune never reached: it ended in fewer statements than estimated
    lost_crashes: list[str] = field(default_factory=list)
    # (kind of work, statements) of every run and prune that was not cut off, in order
    complete_work: list[tuple[str, int]] = field(default_factory=list)
    cold_starts: int = 0  # cold runs that finished
    # the last commit landed at each cold run started, crashed or not (None: an older journal's)
    cold_positions: list[str | None] = field(default_factory=list)
    # (target, plan action, the last Apply cycle when asked): a later applied cycle must do it
    refreshes_asked: list[tuple[str, str, int]] = field(default_factory=list)
    prunes: int = 0
    runs: int = 0
    events: list[str] = field(default_factory=list)
    batches: list[tuple[int, bool]] = field(default_factory=list)  # (records, finish) landed, in order
    snapshots: list[tuple[str, str, str]] = field(default_factory=list)  # (source, start, end) landed

    @property
    def cold_runs(self) -> int:
        return len(self.cold_positions)

    def refreshes(self, action: str) -> int:
        """How many refreshes of `action` (REFRESH: `lakerep refresh`, EXTERNAL_REFRESH) were asked."""
        return sum(asked[1] == action for asked in self.refreshes_asked)

    def save(self, seed: int, landing_order: str, path: Path) -> None:
        """What `lakerep scenarios --recheck` needs to check the lake again: the workload is
        drawn again from the seed and the batches."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"seed": seed, "landing_order": landing_order, **self.__dict__}, indent=1))

    @classmethod
    def load(cls, path: Path) -> tuple[int, str, Journal]:
        saved = json.loads(path.read_text())
        seed, landing_order = saved.pop("seed"), saved.pop("landing_order")
        saved["batches"] = [tuple(batch) for batch in saved["batches"]]
        saved["refreshes_asked"] = [tuple(asked) for asked in saved.get("refreshes_asked", [])]
        saved["complete_work"] = [tuple(work) for work in saved.get("complete_work", [])]
        saved["snapshots"] = [tuple(landed) for landed in saved.get("snapshots", _snapshot_events(saved))]
        cold_runs = saved.pop("cold_runs", 0)  # journals of older runs counted them, without positions
        saved.setdefault("cold_positions", [None] * cold_runs)
        for counted_before in ("refreshes_requested", "external_refreshes"):  # journals of older runs
            saved.pop(counted_before, None)
        return seed, landing_order, cls(**saved)


def _snapshot_events(saved: dict) -> list[tuple[str, str, str]]:
    """The snapshots a journal from before `snapshots` was kept landed: its "snapshots S..E"
    events, one snapshot of each refreshable source."""
    return [
        (source, *event.removeprefix("snapshots ").split(".."))
        for event in saved["events"]
        if event.startswith("snapshots ")
        for source in REFRESHABLE_SOURCES
    ]


@dataclass(frozen=True)
class ScenarioResult:
    seed: int
    schedule: Schedule
    journal: Journal
    checks: tuple[str, ...]
    seconds: float

    def line(self) -> str:
        journal = self.journal
        return (
            f"scenario {self.seed}: passed in {self.seconds:,.0f} s; {journal.runs} runs, "
            f"{len(journal.crashes)} crashes, {journal.cold_starts} cold starts, "
            f"{journal.refreshes('REFRESH')} refreshes asked, "
            f"{journal.refreshes('EXTERNAL_REFRESH')} external refreshes, {journal.prunes} prunes; "
            f"{len(self.checks)} checks"
            + (f"; crash points never reached: {journal.lost_crashes}" if journal.lost_crashes else "")
        )


def run_scenario(seed: int, *, progress: Callable[[str], None] = lambda _: None) -> ScenarioResult:
    """Run scenario `seed` on a fresh lake; ScenarioFailed says what broke and how to reproduce it."""
    from lakerep.scenarios.checks import check_lake

    started = time.monotonic()
    schedule = draw_schedule(seed)
    progress(f"scenario {schedule.describe()}")
    driver = Driver(schedule)
    (driver.home / JOURNAL_FILE).unlink(missing_ok=True)  # an earlier scenario's, in the same lake
    try:
        # One dbt parse for the scenario's runs and commands (none changes the project's files),
        # as a test module shares one: seeds 2 and 4 took 480 s with it, 517 s with a parse per
        # run and command (ADR 0006, fourteenth cuts).
        with dbt.parse_once():
            try:
                driver.play(progress)
            finally:  # a failed scenario's too: `--recheck` then says what its lake holds
                driver.journal.save(seed, schedule.landing_order, driver.home / JOURNAL_FILE)
            checks = check_lake(driver.workload, driver.journal)
    except Exception as failure:  # a check, or a run or command that failed outright
        raise ScenarioFailed(
            f"scenario {seed} failed: {type(failure).__name__}: {failure}\n"
            f"  schedule: {schedule.describe()}\n  crashes: {driver.journal.crashes}\n"
            f"  reproduce: {reproduce_command(seed)}"
        ) from failure
    return ScenarioResult(seed, schedule, driver.journal, tuple(checks), time.monotonic() - started)


def recheck_lake() -> tuple[int, list[str]]:
    """The checks again, on the lake a scenario left in LAKEREP_HOME."""
    from lakerep.scenarios.checks import check_lake

    seed, journal, workload = journaled_lake()
    return seed, check_lake(workload, journal)


def journaled_lake() -> tuple[int, Journal, Workload]:
    """The seed and journal a scenario left in LAKEREP_HOME, and its workload drawn again from
    the seed and the batches the journal says were landed."""
    path = apply_commands.lake_home() / JOURNAL_FILE
    if not path.exists():
        raise ValueError(f"{path} does not exist: no scenario has run in this lake")
    seed, landing_order, journal = Journal.load(path)
    workload = Workload(seed=seed, config=WorkloadConfig(landing_order=landing_order))
    for records, finish in journal.batches:
        workload.next_batch(records, finish=finish)
    return seed, journal, workload


class Driver:
    def __init__(self, schedule: Schedule, *, min_crashes: int = MIN_CRASHES) -> None:
        self.schedule = schedule
        self.min_crashes = min_crashes  # extra crashing steps follow the schedule until this many
        self.rng = random.Random(f"lakerep-scenario-driver-{schedule.seed}")
        self.workload = Workload(
            seed=schedule.seed, config=WorkloadConfig(landing_order=schedule.landing_order)
        )
        self.journal = Journal()
        self.token_file: Path | None = None  # read by the next run only, as a user passes it once
        self.landed_commits: list[str] = []  # commit positions of the latest batch

    # -- the scenario ---------------------------------------------------------------------------

    def play(self, progress: Callable[[str], None]) -> None:
        reset_lake()
        self.land(self.schedule.first_records)
        self.land_sales_snapshots()
        self.run()  # SALES refreshed from the snapshots, STOCK in a gap (DISABLE_REFRESH)
        for number, step in enumerate(self.schedule.steps, 1):
            self.step(step)
            progress(f"  step {number}: {step.describe()} -> {self.journal.events[-1]}")
        extra = 0
        while len(self.journal.crashes) < self.min_crashes and extra < 3 * self.min_crashes:
            extra += 1
            self.step(Step(records=self.rng.randint(40, 160), event="warm", crash_fraction=self.rng.random()))
            progress(f"  extra crash step: {self.journal.events[-1]}")
        self.settle()
        progress(
            f"  settled after {self.journal.runs} runs, crashes: {len(self.journal.crashes)}; "
            f"statements of the complete work: {self.journal.complete_work}"
        )

    def step(self, step: Step) -> None:
        self.land(step.records, finish=step.event == "cold")
        self.resolve_waits()
        start_type, token_file = "warm", self.take_token_file()
        event_crash = step.crash_fraction if step.crash_in_event else None
        run_crash = None if step.crash_in_event else step.crash_fraction
        if step.event == "cold":
            start_type, token_file = "cold", self.cold_start_tokens()
        elif step.event == "recover":
            self.try_to_its_point(lambda attempt, share: self.recover(share, attempt=attempt), event_crash)
            token_file = self.take_token_file()
        elif step.event == "reread":
            token_file = self.reread_tokens()
        elif step.event == "refresh":
            member = self.rng.choice([m for m in MEMBERS.values() if not m.registration.disable_refresh])
            self.ask_refresh(member.target_table, "refresh")
            self.land_sales_snapshots()
        elif step.event == "external":
            self.external_refresh(MEMBERS["stock_copy"])
        elif step.event in ("prune", "retention"):
            limit = 0 if step.event == "retention" else None
            self.try_to_its_point(
                lambda attempt, share: self.prune(
                    retention_limit=limit, crash_fraction=share, attempt=attempt
                ),
                event_crash,
            )

        def run(attempt: int, share: float | None) -> bool:
            tokens = token_file
            if attempt > 1:  # a warm run, or a cold start at the end of the log again
                tokens = self.cold_start_tokens() if start_type == "cold" else None
            label = f"{step.event} step" + try_label(attempt)
            return self.run(start_type, tokens, crash_fraction=share, label=label)

        crashed = self.try_to_its_point(run, run_crash, finish=start_type == "cold")
        self.journal.events.append(f"{step.event} run {'crashed' if crashed else 'done'}")

    def try_to_its_point(
        self, work: Callable[[int, float | None], bool], fraction: float | None, *, finish: bool = False
    ) -> bool:
        """Do `work` (its arguments: the try, from 1, and the share of its estimate at which it
        crashes: `fraction`, crash_share's on the last try); when it had a crash point and ended before
        it (crashing journaled the point as lost), land a small batch (`finish`: every transaction
        ends in it), so that a run has as much to do, and try again, with the point at the same
        share of the statements the last try sent, now counted (at most LAST_TRY_SHARE of them
        on the last try: crash_share); TRIES in all. A kind's first work
        has no count of its own (seed 2's first cold run sent 128 statements, its first run 206),
        and a first try may differ from those after it: seed 8's first recover run finished the
        cycle a crash had cut off (119 statements), its second had none to finish (90, short of its
        point at 116). Only a point the last try misses stays lost. True when it crashed."""
        attempt = 1
        while True:
            lost_before = len(self.journal.lost_crashes)
            crashed = work(attempt, crash_share(fraction, attempt))
            if len(self.journal.lost_crashes) == lost_before or attempt == TRIES:
                return crashed  # it crashed, had no crash point, or was the last try
            missed = self.journal.lost_crashes.pop()
            attempt += 1
            self.journal.events.append(f"try {attempt} after a miss: {missed}")
            self.land(self.rng.randint(20, 80), finish=finish)
            self.resolve_waits()

    def recover(self, crash_fraction: float | None, *, attempt: int = 1) -> bool:
        """A recover run, its token file for the warm run after it; True when it crashed."""
        token_file = self.home / "scenario-recover.tokens"
        token_file.unlink(missing_ok=True)  # an earlier recover's file is not this one's
        self.token_file = None
        label = "recover step" + try_label(attempt)
        crashed = self.run("recover", token_file, crash_fraction=crash_fraction, label=label)
        if not crashed and token_file.exists():
            self.token_file = token_file  # the warm run after it reads it
        return crashed

    def cold_start_tokens(self) -> Path:
        """The token file of a cold start at the end of the log. Every transaction ended in the
        batch just landed (finish), so a cold start there loses none."""
        self.journal.cold_positions.append(self.workload.oracle.commit_positions()[-1])
        return self.write_tokens("cold", {}, TokenPair(CURRENT_RESTART, CURRENT_RESTART))

    def settle(self) -> None:
        """Clean warm runs until every set is APPLIED in a cycle that was not cut off."""
        for _ in range(SETTLE_RUNS):
            self.land(self.rng.randint(20, 80))
            self.resolve_waits()
            self.run("warm", self.take_token_file())
            if set(self.set_status().values()) == {"APPLIED"}:
                return
        raise AssertionError(f"sets not APPLIED after {SETTLE_RUNS} clean runs: {self.set_status()}")

    # -- runners --------------------------------------------------------------------------------

    def run(
        self,
        start_type: str = "warm",
        token_file: Path | None = None,
        *,
        crash_fraction=None,
        label: str = "",
    ) -> bool:
        """One runner (`lakerep run --once`); True when it crashed at its crash point."""
        self.journal.runs += 1
        start = SessionStart(
            SESSION, start_type, token_file, once=True, prune_interval=NO_PRUNE_DUE, dbt_command="run"
        )
        what = f"{label or 'extra step'}, {start_type} run"
        crashed, statements, reports = self.crashing(
            what, f"{start_type} run", crash_fraction, lambda: run_session(start)
        )
        if crashed:
            leave_a_killed_runners_lock(self.home, SESSION)
        else:  # a cycle's worth: a run after a crash finishes the cut-off cycle first
            self.journal.complete_work.append((f"{start_type} run", statements // max(1, len(reports))))
            if start_type == "cold":
                self.journal.cold_starts += 1
        return crashed

    def prune(self, *, retention_limit: int | None, crash_fraction: float | None, attempt: int = 1) -> bool:
        """`lakerep prune` (a retention prune with `retention_limit` 0); True when it crashed."""
        from lakerep.scenarios.checks import check_prune_keeps_what_members_need, prune_bounds

        self.journal.prunes += 1
        bounds = prune_bounds(lake_session()) if retention_limit is None else None
        kind = EVENTS_WITH_OWN_WORK["prune" if retention_limit is None else "retention"]
        crashed, statements, _ = self.crashing(
            kind + try_label(attempt),
            kind,
            crash_fraction,
            lambda: apply_commands.prune(retention_limit),
        )
        if not crashed:
            self.journal.complete_work.append((kind, statements))
        if bounds is not None:  # a prune within RETENTION_LIMIT leaves every member its changes
            check_prune_keeps_what_members_need(lake_session(), bounds)
        return crashed

    def estimate(self, kind: str) -> int:
        """The statements the next `kind` of work ("warm run", "cold run", "recover run", "prune",
        "retention prune") will send, for a cycle: as many as the last complete one of its kind
        sent, so that a crash point may fall on any statement up to the last. A kind not yet
        seen takes the most of any complete run (of any prune; the scenario's first run, on an
        empty lake, is a complete one): a guess too high costs another try (try_to_its_point), one too
        low leaves the work's last statements without a crash point."""
        counted = self.journal.complete_work
        same_kind = [count for seen, count in counted if seen == kind]
        if same_kind:
            return same_kind[-1]
        same_work = [count for seen, count in counted if seen.split()[-1] == kind.split()[-1]]
        return max(same_work, default=PRUNE_STATEMENTS_GUESS)

    def crashing(self, what: str, kind: str, fraction: float | None, call: Callable):
        """Call `call` (a `kind` of work), crashing before the statement at `fraction` of its
        estimated statements (None: no crash); a crash point it never reached is journaled as
        lost (try_to_its_point moves it to the events when it tries again). Returns (crashed,
        statements sent, what `call` returned)."""
        at = None if fraction is None else max(1, math.ceil(fraction * self.estimate(kind)))
        injector = CrashInjector(at)
        returned = None
        try:
            with injected(injector):
                returned = call()
        except dbt.DbtFailed:
            if not injector.fired or injector.failed_before:  # a failure of its own, not the crash
                raise
        if injector.fired:
            forget_a_killed_runners_settings(lake_session())
            self.journal.crashes.append(f"{what}: {injector.fired_at}")
            self.journal.crashed_work.append(kind)
        elif at is not None:
            self.journal.lost_crashes.append(f"{what}: statement {at}, after its {injector.statements}")
        return injector.fired, injector.statements, returned

    # -- the source side ------------------------------------------------------------------------

    @property
    def home(self) -> Path:
        return apply_commands.lake_home()

    def land(self, records: int, *, finish: bool = False) -> None:
        before = set(self.workload.oracle.commit_positions())
        batch = self.workload.next_batch(records, finish=finish)
        self.journal.batches.append((records, finish))
        landing.land_log_records(lake_session(), batch.records)
        self.landed_commits = [p for p in self.workload.oracle.commit_positions() if p not in before]

    def busy_window(self) -> tuple[str, str]:
        """An unload window in the latest batch: from a position transactions straddle to its last
        commit (a set's synchpoint reaches it in the next cycle)."""
        commits = self.landed_commits or self.workload.oracle.commit_positions()[-1:]
        end = commits[-1]
        start = commits[self.rng.randrange(0, max(1, len(commits) - 1))] if len(commits) > 1 else end
        return start, end

    def land_sales_snapshots(self) -> None:
        start, end = self.busy_window()
        for source in REFRESHABLE_SOURCES:
            self.land_snapshot(source, start, end)
        self.journal.events.append(f"snapshots {start}..{end}")

    def land_snapshot(self, source: str, start: str, end: str) -> Snapshot:
        """An unload of `source` over start..end, landed for Apply's refreshes and the complete CCDs."""
        snapshot = self.workload.snapshot(source, start, end)
        landing.land_snapshot_rows(lake_session(), snapshot.to_landing_rows())
        self.journal.snapshots.append((source, start, end))
        return snapshot

    def external_refresh(self, member: Member) -> None:
        """Another tool unloads the source over a busy window into the target, then marks it; its
        unload lands too, for the source's complete CCD (the rows that never changed)."""
        start, end = self.busy_window()
        spark = lake_session()
        name = relation_name(member.target_table)
        if not spark.catalog.tableExists(name):
            return
        rows = self.land_snapshot(member.source, start, end).rows
        frame = spark.createDataFrame(rows, schema=spark.table(name).schema)
        frame.write.format("delta").mode("overwrite").saveAsTable(name)
        self.ask_refresh(member.target_table, "external", start, end)

    def ask_refresh(self, target_table: str, kind: str, *window: str) -> None:
        """`lakerep refresh` (kind refresh) or `lakerep mark-external-refresh` (kind external),
        journaled with the Apply cycle it came after."""
        cycles = built_rows("apply_trail", "select max(apply_cycle) from {table}")
        last_cycle = (cycles[0][0] if cycles else None) or 0
        apply_commands.mark([target_table], kind, *window)
        action = {"refresh": "REFRESH", "external": "EXTERNAL_REFRESH"}[kind]
        self.journal.refreshes_asked.append((target_table, action, last_cycle))

    def resolve_waits(self) -> None:
        """A set WAITING for a snapshot gets one; a set in a GAP gets an external refresh."""
        status = self.set_status()
        if status.get("SALES") == "WAITING":
            self.land_sales_snapshots()
        if status.get("STOCK") == "GAP":
            self.external_refresh(MEMBERS["stock_copy"])

    def set_status(self) -> dict[str, str]:
        return dict(built_rows("apply_set_status", "select set_name, status from {table}"))

    # -- token files ----------------------------------------------------------------------------

    def take_token_file(self) -> Path | None:
        token_file, self.token_file = self.token_file, None
        return token_file

    def write_tokens(self, name: str, explicit: dict[str, TokenPair], special: TokenPair | None) -> Path:
        path = self.home / f"scenario-{name}.tokens"
        write_token_file(path, explicit, header=f"scenario {self.schedule.seed}: {name}", special=special)
        return path

    def reread_tokens(self) -> Path:
        """A token file moving one source back to an earlier commit: its changes are read again.
        The commit (RESTART2) is at or before where the source's state would restart it: an
        explicit override ahead of that skips the changes between, as the user asked. RESTART1
        is the first change to the source of any transaction still open at that commit: reading
        starts there, and a transaction begun before it would lose its earlier changes (seed 8:
        landed in commit order, such a transaction arrives whole in a later batch)."""
        source = self.rng.choice(sorted(self.workload.registrations))
        restart = self.state_restart(source)
        oracle = self.workload.oracle
        commits = [p for p in oracle.commit_positions() if restart is None or p <= restart]
        commits = commits or [restart]  # nothing committed before it: reread from there
        back = commits[self.rng.randrange(max(0, len(commits) - 60), len(commits))]
        return self.write_tokens("reread", {source: reread_tokens_at(oracle, source, back)}, None)

    def state_restart(self, source: str) -> str | None:
        """The lower of the source's RESTART1 and RESTART2 in the capture state (None: no state)."""
        owner, name = source.split(".")
        tokens = built_rows(
            "capture_state",
            "select least(restart1, restart2) from {table} "
            f"where session_name = '{SESSION}' and source_owner = '{owner}' and source_table = '{name}'",
        )
        return tokens[0][0] if tokens else None


def reread_tokens_at(oracle, source: str, commit: str) -> TokenPair:
    """Tokens reading `source` again from after `commit` without losing a change: RESTART2 the
    commit, RESTART1 the first change to the source of any transaction still open there."""
    open_there = [
        change.log_position
        for uow in oracle.committed_uows()
        if uow.commit_position > commit
        for change in uow.changes
        if change.table == source
    ] + [change.log_position for change in oracle.open_changes() if change.table == source]
    return TokenPair(min([commit, *open_there]), commit)


def built_rows(model: str, select: str) -> list:
    """The rows of `select` ({table}: the model's relation); none while the model is not built."""
    spark = lake_session()
    table = relation_name(model)
    return spark.sql(select.format(table=table)).collect() if spark.catalog.tableExists(table) else []
