"""CDC sessions (SPEC §4): start types, the cycle loop, stopping, recover.

The runner only drives: it parses the token file, takes the session lock and passes the run to
dbt as vars, each cycle inside the lake's critical section; a run's first cycle prunes when the
lake's prune is due and a continuous run's every PRUNE_INTERVAL after it (var lakerep_prune,
SPEC §6), and a cycle every TEST_INTERVAL also runs the data tests (a `build` cycle; the others
are `dbt run`, models only), a run's first cycle too unless the run carries on the lake's
schedule (lakerep.data_test_schedule). Which tokens each source restarts from, whether a warm
start turns cold or is refused, and whether a cut-off cycle is finished first, are SQL
(restart_decisions, capture_window, lakerep_cycle_opener_sql).
"""

from __future__ import annotations

import json
import math
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from lakerep import apply_commands, data_test_schedule, dbt, declared_views, landing
from lakerep.declared_views import DECLARED_VIEWS
from lakerep.lake import lake_home, lake_session
from lakerep.locks import critical_section, locks_in_lake, session_lock
from lakerep.pipeline import APPLY_MODELS
from lakerep.registrations import load_registrations
from lakerep.sources.landing import LOWEST_POSITION, cold_start_done, land_new_changes, open_source
from lakerep.sources.postgresql import PostgresqlSource
from lakerep.status import write_cycle_file
from lakerep.summary import (
    highest_staged_batch,
    quarantine_text,
    relation_name,
    snapshot_rows_quarantined,
    summarize,
)
from lakerep.token_file import TokenFile, TokenPair, read_token_file, write_token_file

START_TYPES = ("cold", "warm", "warmns", "recover")


class StartRefused(RuntimeError):
    """The restart decision refused the start (warmns with the log pruned, LAG_LIMIT)."""


class TokenFileNeeded(ValueError):
    """recover writes the state's tokens to a token file, and none was named."""


@dataclass(frozen=True)
class SessionStart:
    session: str
    start_type: str = "warm"
    token_file: Path | None = None
    once: bool = False
    commit_interval: float | None = None  # seconds; None: the commit_interval var
    prune_interval: float | None = None  # seconds; None: the prune_interval var
    test_interval: float | None = None  # seconds; None: the test_interval var
    dbt_command: str = "build"  # "run": models only, never the data tests
    capture_only: bool = False  # Capture's models only; Apply catches up in a later full cycle
    source: PostgresqlSource | None = None  # read by the runner at the start of every cycle


@dataclass(frozen=True)
class CycleReport:
    cycle_number: int
    run_id: str
    recovered: bool  # the cycle finished one an earlier run left cut off
    records_read: int
    row_changes: int
    uows_committed: int
    synchpoint: str | None
    lag_seconds: float | None
    pruned: bool = False  # the cycle pruned the CD and UOW tables
    up_to_batch: int = 0  # the highest landing batch Capture has read
    idle: bool = False  # nothing was landed since the last cycle: dbt did not run
    data_tests: bool = False  # the cycle was a `dbt build` with the data tests, and they passed
    # log records and rows of unloads landed in the cycle's window and held back, by reason
    records_quarantined: dict[str, int] = field(default_factory=dict)
    snapshot_rows_quarantined: dict[str, int] = field(default_factory=dict)

    @property
    def quarantined(self) -> bool:
        return bool(self.records_quarantined or self.snapshot_rows_quarantined)

    def line(self, session: str) -> str:
        if self.idle:
            return (
                f"session {session} cycle {self.cycle_number}: idle, nothing landed since batch "
                f"{self.up_to_batch}; synchpoint {self.synchpoint or 'none'}"
            )
        kind = "recovery cycle" if self.recovered else "cycle"
        lag = "n/a" if self.lag_seconds is None else f"{self.lag_seconds:,.1f} s"
        quarantined = quarantine_text(self.records_quarantined, self.snapshot_rows_quarantined)
        return (
            f"session {session} {kind} {self.cycle_number}: {self.records_read:,} records read, "
            f"{self.row_changes:,} row changes, {self.uows_committed:,} UOWs committed; "
            f"synchpoint {self.synchpoint or 'none'}; lag {lag}{'; pruned' if self.pruned else ''}"
            + ("; data tests passed" if self.data_tests else "")
            + (f"; {quarantined}" if quarantined else "")
        )


class StopRequest:
    """Set by SIGINT/SIGTERM: the current cycle finishes and commits its state, then the run ends."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum, frame) -> None:
        self.requested = True

    def sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self.requested and (remaining := deadline - time.monotonic()) > 0:
            time.sleep(min(0.2, remaining))  # measured once: never below zero


@contextmanager
def stop_on_signals() -> Iterator[StopRequest]:
    stop = StopRequest()
    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def run_session(
    start: SessionStart, *, progress: Callable[[str], None] = lambda _: None
) -> list[CycleReport]:
    """Run a CDC session until stopped (or one cycle with `once`; recover: one, then end)."""
    if start.start_type not in START_TYPES:
        raise ValueError(f"start type must be one of {', '.join(START_TYPES)}, not {start.start_type!r}")
    if start.start_type == "recover" and start.token_file is None:
        raise TokenFileNeeded(
            "recover writes the state's restart tokens to a token file: pass --token-file FILE"
        )
    if start.start_type == "recover":
        _check_token_file_folder(start.token_file)
    commit_interval = _interval(start.commit_interval, "commit_interval")
    prune_interval = _interval(start.prune_interval, "prune_interval")
    test_interval = _interval(start.test_interval, "test_interval")
    registered = load_registrations()
    tokens = (
        TokenFile()
        if start.start_type == "recover"
        else read_token_file(start.token_file, registered=registered.keys())
    )
    home = lake_home()
    with session_lock(home, start.session), stop_on_signals() as stop:
        opened = None
        if start.source is not None:  # before dbt parses: a source it cannot read ends the run at once
            with critical_section(home):
                opened = open_source(lake_session(), start.source, start.start_type)
            if opened.said:
                progress(f"session {start.session}: {opened.said}")
            if opened.cold_start_from is not None:
                start, tokens = _cold_start(start, tokens, opened.cold_start_from)
        with dbt.parse_once():
            run_vars = {
                "lakerep_session": start.session,
                "lakerep_start": start.start_type,
                "lakerep_run_id": f"{start.session}-{uuid.uuid4()}",
                "lakerep_restart_tokens": _token_vars(tokens, registered),
                "prune_interval": prune_interval,  # the lake's prune due (lakerep_cycle_prunes)
            }
            reports: list[CycleReport] = []
            last_prune = time.monotonic()
            # what the record of passed data tests is kept for: only a build session has one
            fingerprint = data_test_schedule.project_fingerprint()
            last_test = _data_tests_carried_over(home, start, fingerprint)  # None: the first cycle tests
            while True:
                if start.source is not None:
                    with critical_section(home):
                        land_new_changes(
                            lake_session(),
                            start.source,
                            opened,
                            refresh_truncated=lambda tables: _refresh_truncated(start, tables, progress),
                        )
                prune = cycle_prunes(
                    start,
                    first_cycle=not reports,
                    now=time.monotonic(),
                    last_prune=last_prune,
                    interval=prune_interval,
                )
                if reports and not prune and _nothing_landed_since(reports[-1]):
                    report = idle_cycle(reports[-1])
                else:
                    test = data_tests_due(time.monotonic(), last_test, test_interval)
                    if test:
                        last_test = time.monotonic()
                    report = _dbt_cycle(home, start, {**run_vars, "lakerep_prune": prune}, test, fingerprint)
                    if report.pruned:
                        last_prune = time.monotonic()
                    if _completed_no_cycle(report, reports):
                        report = idle_cycle(report)
                    if start.dbt_command == "build" and _left_untested(
                        report, reports, run_vars["lakerep_run_id"]
                    ):
                        data_test_schedule.forget(home)
                        last_test = None  # the run's next cycle tests
                if opened and opened.cold_start_from and not report.recovered and start.start_type == "cold":
                    with critical_section(home):
                        cold_start_done(lake_session(), opened)
                reports.append(report)
                write_cycle_file(home, start.session, report)  # what `lakerep status` shows of it
                progress(report.line(start.session))
                if report.recovered and start.start_type != "recover" and not stop.requested:
                    continue  # the cut-off cycle is finished; this run's own first cycle follows
                if start.once or start.start_type == "recover" or stop.requested:
                    break
                stop.sleep(commit_interval)
                if stop.requested:
                    break
            if start.start_type == "recover":
                _write_state_to_token_file(start.session, start.token_file)
                progress(f"session {start.session}: restart tokens written to {start.token_file}")
            return reports


def _refresh_truncated(start: SessionStart, tables: tuple[str, ...], progress: Callable[[str], None]) -> None:
    """The run read a TRUNCATE of `tables`: their members are refreshed from an unload taken now
    (apply_commands.refresh_truncated), one progress line per table unloaded."""
    for line in apply_commands.refresh_truncated(lake_session(), start.source, tables):
        progress(f"session {start.session}: {line}")


def _cold_start(start: SessionStart, tokens: TokenFile, position: str) -> tuple[SessionStart, TokenFile]:
    """The start of a run whose lake owes its source a cold start from `position` (its slot was
    lost: lakerep.sources.landing.open_source), and its tokens: every source reads the log again
    from the lowest position and captures what commits past `position` (RESTART2), so every
    member is in a gap there (SPEC §5). Its token file cannot restore the changes that are lost,
    so it is left out. A recover leaves the cold start owed to the next run; warmns refuses it."""
    if start.start_type == "recover":
        return start, tokens
    if start.start_type == "warmns":
        raise StartRefused(
            f"the lake owes its source a cold start from {position} (its replication slot was lost), "
            "and warmns never switches to a cold start: start with --start cold"
        )
    return replace(start, start_type="cold"), TokenFile(special=TokenPair(LOWEST_POSITION, position))


def _dbt_cycle(home: Path, start: SessionStart, run_vars: dict, test: bool, fingerprint: str) -> CycleReport:
    """A cycle that runs dbt. One with the data tests (a `build`) removes the lake's record of
    when they last passed before it starts (lakerep.data_test_schedule), so a test cycle that
    fails or is cut off leaves none; a whole session's writes it once its tests have passed. The
    declared views are built by the first cycle after the project changed and by every cycle
    with data tests (lakerep.declared_views), and left out of the others."""
    views = (start.dbt_command == "build" and test) or not declared_views.built(home, fingerprint)
    args = dbt_args(start, test, views=views)
    build = args[0] == "build"
    if build:
        data_test_schedule.forget(home)
    report = replace(_cycle(home, run_vars, args), data_tests=build)
    if views and not start.capture_only:
        declared_views.remember(home, fingerprint)
    if build and not start.capture_only:  # a capture-only build leaves Apply's tests out
        data_test_schedule.remember(
            home,
            fingerprint,
            passed_at=time.time(),
            run_id=report.run_id,
            cycle_number=report.cycle_number,
        )
    return report


def _left_untested(report: CycleReport, before: list[CycleReport], run_id: str) -> bool:
    """Whether a cycle that ran no data tests did what a run's start would test: it finished a
    cycle an earlier run left cut off, or it is the run's own first cycle and a warm start turned
    into an automatic cold start there (restart_decisions)."""
    if report.data_tests:
        return False
    if report.recovered:
        return True
    own_first = all(earlier.recovered for earlier in before)
    return own_first and _automatic_cold_start(run_id)


def _automatic_cold_start(run_id: str) -> bool:
    return _lake_has_rows(
        "restart_decisions", f"run_id = '{run_id}' and restart_rule = 'automatic cold start'"
    )


def _lake_has_rows(model: str, condition: str) -> bool:
    """Whether the model's table holds a row meeting `condition` (False before it is built)."""
    spark = lake_session()
    table = relation_name(model)
    if not spark.catalog.tableExists(table):
        return False
    return spark.sql(f"select count(*) from {table} where {condition}").collect()[0][0] > 0


def cycle_prunes(
    start: SessionStart, *, first_cycle: bool, now: float, last_prune: float, interval: float
) -> bool | str:
    """Whether this cycle of a run prunes (var lakerep_prune). A run's first cycle, --once
    too, prunes when the lake's prune is due ('due': PRUNE_INTERVAL since the lake last pruned,
    whichever run did, lakerep_cycle_prunes), so a pipeline of `lakerep run --once` prunes too;
    a continuous run's later cycles once PRUNE_INTERVAL has passed since its last prune, or
    since it started. A capture-only run never prunes: what the prune (capture_prune) may remove
    follows Apply's progress (pruning_control), which such a run does not make, so the prune
    waits for a run with Apply. Nor does a recover, which only finishes a cut-off cycle."""
    if start.capture_only or start.start_type == "recover":
        return False
    if first_cycle:
        return "due"
    return not start.once and prune_due(now, last_prune, interval)


def prune_due(now: float, last_prune: float, interval: float) -> bool:
    """A continuous run prunes in a cycle after its first once PRUNE_INTERVAL seconds have
    passed since it last pruned, or since it started."""
    return now - last_prune >= interval


def data_tests_due(now: float, last_test: float | None, interval: float) -> bool:
    """The data tests come with a cycle that runs dbt once TEST_INTERVAL seconds have passed
    since they last passed (0: every cycle), and with a run's first such cycle unless the run
    carries on the lake's schedule (lakerep.data_test_schedule). They check the contracts of
    what the cycles wrote and cost about 0.7 of a cycle (`make bench`), so a production cycle
    does not pay for them each time (ADR 0006)."""
    return last_test is None or now - last_test >= interval


def _data_tests_carried_over(home: Path, start: SessionStart, fingerprint: str) -> float | None:
    """When the lake's data tests last passed (time.monotonic), if this run carries on the lake's
    schedule (lakerep.data_test_schedule: a warm start on the embedded lake), else None."""
    if (
        start.dbt_command != "build"
        or locks_in_lake()  # a cluster's: each machine has a home of its own
        or not data_test_schedule.carries_on(start.start_type, start.token_file)
    ):
        return None
    return data_test_schedule.carried_over(
        home,
        fingerprint,
        wall_now=time.time(),
        monotonic_now=time.monotonic(),
        cycle_in_lake=_capture_cycle_in_lake,
    )


def _capture_cycle_in_lake(run_id: str, cycle_number: int) -> bool:
    """Whether the lake holds capture cycle `cycle_number` of run `run_id` (a valid run id)."""
    cycle = f"record_kind = 'cycle' and run_id = '{run_id}' and cycle_number = {int(cycle_number)}"
    return _lake_has_rows("capture_cycles", cycle)


def cycle_is_idle(last: CycleReport, highest_landed: int) -> bool:
    """A cycle after the first of a run has nothing to do, and runs no dbt, when no landing batch
    (log records or snapshot rows) arrived since the last cycle read up to its batch and the last
    cycle finished its own work: Capture's window would be empty and Apply's plan the same, since
    refresh and mark-external-refresh refuse while a session runs. Deciding this once, with one
    query, makes an idle cycle cost seconds and no Delta commit (SPEC §9)."""
    return not last.recovered and highest_landed <= last.up_to_batch


def _nothing_landed_since(last: CycleReport) -> bool:
    return cycle_is_idle(last, highest_landed_batch(lake_session()))


def _completed_no_cycle(report: CycleReport, before: list[CycleReport]) -> bool:
    """Whether the cycle dbt just ran completed none (nothing landed: it commits to no table, ADR
    0011), so that its report, the lake's last cycle, is the previous report's cycle again. After
    a cycle that finished one cut off, that cycle is an earlier run's: taken for another recovery,
    the run would go on finishing it for ever."""
    return bool(before) and report.cycle_number == before[-1].cycle_number


def idle_cycle(last: CycleReport) -> CycleReport:
    """The report of a cycle that had nothing to do: the last cycle's state, nothing read."""
    return replace(
        last,
        recovered=False,
        records_read=0,
        row_changes=0,
        uows_committed=0,
        pruned=False,
        idle=True,
        data_tests=False,
        records_quarantined={},
        snapshot_rows_quarantined={},
    )


def highest_landed_batch(spark) -> int:
    return landing.next_landing_batch(spark) - 1


def dbt_args(start: SessionStart, with_tests: bool, *, views: bool = True) -> list[str]:
    """The dbt command of a cycle. Unit tests are for development and CI, never part of a
    production cycle (SPEC §9): a `build` session's cycle with its data tests due is
    `dbt build` of the models and their data tests; its other cycles are `dbt run`. Without
    `views`, the views built with the declarations are left out (lakerep.declared_views)."""
    build = start.dbt_command == "build" and with_tests
    excluded = [*([APPLY_MODELS] if start.capture_only else []), *([] if views else [DECLARED_VIEWS])]
    return [
        "build" if build else "run",
        *(["--exclude-resource-type", "unit_test"] if build else []),
        *(["--exclude", *excluded] if excluded else []),
    ]


def _cycle(home: Path, run_vars: dict, dbt_args: list[str]) -> CycleReport:
    with critical_section(home):
        spark = lake_session()
        before = highest_staged_batch(spark)
        started_micros = int(time.time() * 1_000_000)
        outcome = dbt.invoke([*dbt_args, "--vars", json.dumps(run_vars)], check=False, quiet=True)
    if outcome.exit_code != dbt.EXIT_OK:
        refusal = _refusal(spark, run_vars)
        if refusal:
            raise StartRefused(refusal)
        outcome.raise_for_failure(dbt_args)
    summary = summarize(spark, before)
    # The lag is the replica's staleness as the cycle ends: now, minus the source time up to
    # which every committed transaction has been applied.
    # Whether it pruned, when it was asked to: capture_prune logged a prune since the cycle began
    # (whether one was due is the lake's to decide, lakerep_cycle_prunes). A cycle not asked
    # (a continuous run's between its prunes) reads no more than before.
    pruned = (
        f"coalesce((select max(unix_micros(pruned_at)) from {relation_name('capture_prune')}) "
        f">= {started_micros}, false)"
        if run_vars.get("lakerep_prune", "due")
        else "false"
    )
    cycle = spark.sql(
        "select *, cast((unix_micros(current_timestamp()) - unix_micros(applied_through_time)) / 1000000 "
        f"as double) as lag_now, {pruned} as pruned_now from {relation_name('capture_cycles')} "
        "where record_kind = 'cycle' order by cycle_number desc limit 1"
    ).collect()[0]
    return CycleReport(
        cycle_number=cycle["cycle_number"],
        run_id=cycle["run_id"],
        recovered=cycle["run_id"] != run_vars["lakerep_run_id"],
        records_read=summary.records_landed,
        row_changes=cycle["row_changes"],
        uows_committed=cycle["uows_committed"],
        synchpoint=cycle["synchpoint"],
        lag_seconds=cycle["lag_now"],
        pruned=cycle["pruned_now"],
        up_to_batch=cycle["up_to_batch"] or 0,
        records_quarantined=summary.quarantined_by_reason,
        snapshot_rows_quarantined=snapshot_rows_quarantined(
            spark, cycle["after_batch"] or 0, cycle["up_to_batch"] or 0
        ),
    )


def _refusal(spark, run_vars: dict) -> str | None:
    table = relation_name("restart_decisions")
    if not spark.catalog.tableExists(table):
        return None
    rows = spark.sql(
        f"select refusal from {table} where refusal is not null "
        f"and run_id = '{run_vars['lakerep_run_id']}' limit 1"
    ).collect()
    return rows[0][0] if rows else None


def _token_vars(tokens: TokenFile, registered: dict) -> dict:
    explicit = []
    for name, pair in tokens.explicit.items():
        registration = registered[name]
        explicit.append(
            {
                "source_owner": registration.source_owner,
                "source_table": registration.source_table,
                "restart1": pair.restart1,
                "restart2": pair.restart2,
            }
        )
    special = tokens.special
    return {
        "explicit": explicit,
        "special": {"restart1": special.restart1, "restart2": special.restart2} if special else None,
    }


def _write_state_to_token_file(session: str, path: Path) -> None:
    """The state's restart tokens as explicit overrides. A source whose state has no token yet
    (nothing of it committed read: a null RESTART1 or RESTART2) has no override, and the header
    names it: a start from the file restarts it from the session's state, as a warm start would."""
    spark = lake_session()
    rows = spark.sql(
        f"select source_owner, source_table, restart1, restart2 from {relation_name('capture_state')} "
        f"where session_name = '{session}'"
    ).collect()
    pairs = {f"{row[0]}.{row[1]}": (row[2], row[3]) for row in rows}
    without = sorted(name for name, pair in pairs.items() if None in pair)
    header = f"restart tokens of session {session}, written by lakerep recover from its state"
    if without:
        header += f"\nno restart point in the state yet, so no override: {', '.join(without)}"
    write_token_file(
        path,
        {name: TokenPair(*pair) for name, pair in pairs.items() if None not in pair},
        header=header,
    )


def _check_token_file_folder(path: Path) -> None:
    """TokenFileNeeded unless recover can write `path` once its cycle has run: its folder exists."""
    if not path.parent.is_dir():
        raise TokenFileNeeded(f"--token-file {path}: its folder {path.parent} does not exist")


def _interval(given: float | None, var: str) -> float:
    """Seconds: the option given, else the project's var (commit_interval, prune_interval,
    test_interval). ValueError naming the option or the var unless it is a finite number, 0 or
    more: a nan COMMIT_INTERVAL runs cycles back to back, a nan or inf PRUNE_INTERVAL never prunes."""
    if given is not None:
        return _seconds(given, f"--{var.replace('_', '-')}")
    import yaml

    from lakerep import PROJECT_DIR

    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))
    return _seconds(project["vars"][var], f"var {var} (dbt_project.yml)")


def _seconds(value: object, name: str) -> float:
    try:
        seconds = float(value)  # a number, or a var's string of one
    except (TypeError, ValueError):
        seconds = math.nan
    if isinstance(value, bool) or not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"{name} is {value!r}: give seconds, a finite number, 0 or more")
    return seconds
