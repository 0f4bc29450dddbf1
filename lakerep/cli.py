"""The `lakerep` command line: thin orchestration around dbt (decisions live in SQL)."""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import click

from lakerep import PROJECT_DIR, apply_commands, dbt
from lakerep.critical_section import CriticalSectionBusy
from lakerep.lake import exclusive_lake, lake_home, lake_session, reset_lake
from lakerep.lake_locks import LeaseLost
from lakerep.pipeline import (
    LandingNotEmpty,
    land_consistent_snapshots,
    land_next_batch,
    land_refresh_snapshots,
    land_workload,
    run_cycle,
)
from lakerep.registrations import RegistrationError, load_registrations
from lakerep.session import START_TYPES, SessionStart, StartRefused, TokenFileNeeded, run_session
from lakerep.session_lock import LakeInUse, LockFileError, SessionActive, SessionLocked
from lakerep.sources.landing import ContinuityBroken
from lakerep.sources.postgresql import DEFAULT_SLOT, PostgresqlSource, SourceError
from lakerep.summary import apply_lines, capture_line
from lakerep.token_file import TokenFileError

# Exit codes (docs/running.md): dbt's own (0 ok, 1 model or test errors, 2 crash), then ours.
EXIT_CHECK_FAILED = 1  # as a failed data test: a target differs (diff), a scenario failed (scenarios)
EXIT_CRASHED = 2  # as dbt's crash: an error neither a user nor a check caused (a traceback is printed)
EXIT_USER_ERROR = 3  # bad option or value, token file or registration: the message says what to fix
EXIT_START_REFUSED = 4  # warmns with the restart point pruned from the log, LAG_LIMIT, a slot lost
EXIT_SESSION_LOCKED = 5  # another runner holds the session, or a session is running (refresh,
# mark-external-refresh, prune), or the lake's critical section stayed busy
EXIT_QUARANTINED = 6  # the run's cycles went through, and validation held back landed records
# or snapshot rows (each cycle's line says how many and why): a pipeline notices, nothing is lost
EXIT_SET_NEEDS_ATTENTION = 7  # (status) a subscription set is STOPPED or in a GAP

MAX_RETENTION_LIMIT = timedelta.max // timedelta(minutes=1)  # minutes: more overflows a timedelta


def _echo(message: str) -> None:
    click.echo(f"lakerep: {message}")


class _LakerepGroup(click.Group):
    """click's group, but a usage error (unknown option, bad value) exits with EXIT_USER_ERROR,
    not click's 2, which is dbt's code for a crash. Usage errors arise parsing the group's
    arguments (make_context) or the command's and in the command itself (invoke); click shows
    them and exits with their exit_code."""

    def make_context(self, *args, **kwargs):
        with _usage_errors_exit_as_user_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx):
        with _usage_errors_exit_as_user_errors():
            return super().invoke(ctx)


@contextmanager
def _usage_errors_exit_as_user_errors() -> Iterator[None]:
    try:
        yield
    except click.UsageError as error:
        error.exit_code = EXIT_USER_ERROR
        raise


# Two lakes that read one database need a slot each: one slot's confirmations would skip the
# other lake's changes.
SLOT_OPTION = click.option(
    "--slot",
    default=DEFAULT_SLOT,
    show_default=True,
    help="With --source: the name of the source's replication slot and publication, one per lake "
    "reading that database.",
)


@click.group(cls=_LakerepGroup)
def main() -> None:
    """Log-based change-data-capture replication on Spark and Delta Lake, driven by dbt."""
    with _user_errors():
        lake_home()  # checks the environment the profile renders before any command starts dbt


@main.command()
@click.option("--records", type=click.IntRange(min=1), default=20_000, show_default=True)
@click.option("--seed", type=int, default=42, show_default=True, help="Same seed, same workload.")
@click.option("--batch-records", type=click.IntRange(min=1), default=5_000, show_default=True)
@click.option("--landing-order", type=click.Choice(["log", "commit"]), default="log", show_default=True)
@click.option("--fresh", is_flag=True, help="Drop every lakerep schema first (refused while a session runs).")
def generate(records: int, seed: int, batch_records: int, landing_order: str, fresh: bool) -> None:
    """Generate a deterministic workload and land it in lakerep_raw.source_log."""
    with _user_errors():
        if fresh:
            reset_lake()
        landed = land_workload(
            records=records, seed=seed, batch_records=batch_records, landing_order=landing_order
        )
        _echo(f"landed {landed.records:,} log records in {landed.batches} batches (seed {seed})")


@main.command()
@click.option("--session", default="default", show_default=True, help="The CDC session (its state and lock).")
@click.option(
    "--start",
    "start_type",
    type=click.Choice(START_TYPES),
    default="warm",
    show_default=True,
    help="cold: token file only, CD/UOW rows discarded; warm: token file reconciled with the state; "
    "warmns: warm, never switching to cold; recover: write the state to the token file and end.",
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="PowerExchange restart token file (overrides; recover writes it).",
)
@click.option("--once", is_flag=True, help="One cycle, then end (default: cycle until stopped).")
@click.option(
    "--commit-interval",
    type=float,
    help="Seconds between cycles (default: the commit_interval var).",
)
@click.option(
    "--prune-interval",
    type=float,
    help="Seconds between prunes of the CD and UOW tables (default: the prune_interval var).",
)
@click.option(
    "--test-interval",
    type=float,
    help="Seconds between cycles that also run the data tests (default: the test_interval var; 0: "
    "every cycle). A warm run of the embedded lake without a token file keeps to the interval since "
    "the lake's tests last passed in an earlier run; any other run tests with its first cycle.",
)
@click.option(
    "--capture-only",
    is_flag=True,
    help="Run Capture's models only; Apply (models/apply) catches up in a later full cycle. "
    "Such a run never prunes: the prune follows Apply's progress.",
)
@click.option(
    "--source",
    "source_dsn",
    metavar="DSN",
    help="A PostgreSQL source (postgresql://user@host:port/database): every cycle first lands its "
    "registered tables' changes from its logical replication slot (created on first use).",
)
@SLOT_OPTION
def run(
    session: str,
    start_type: str,
    token_file: Path | None,
    once: bool,
    commit_interval: float | None,
    prune_interval: float | None,
    test_interval: float | None,
    capture_only: bool,
    source_dsn: str | None,
    slot: str,
) -> None:
    """Run a CDC session: a Capture and Apply cycle (dbt run) every COMMIT_INTERVAL until
    Ctrl-C or SIGTERM, which finish the current cycle and commit its state; a cycle every
    PRUNE_INTERVAL also prunes (the first, --once too, when the lake last pruned that long ago);
    a cycle every TEST_INTERVAL (and the first, unless the run starts warm where the last passed
    tests left off) is a dbt build with the data tests. One progress line per cycle."""
    with _user_errors():
        reports = run_session(
            SessionStart(
                session,
                start_type,
                token_file,
                once,
                commit_interval,
                prune_interval,
                test_interval,
                capture_only=capture_only,
                source=_postgresql_source(source_dsn, slot),
            ),
            progress=_echo,
        )
    quarantined = [report.cycle_number for report in reports if report.quarantined]
    if quarantined:
        click.echo(
            f"lakerep: warning: cycles {', '.join(map(str, quarantined))} quarantined landed input "
            "(see their lines; the rows are in source_log_quarantine and source_snapshot_quarantine)",
            err=True,
        )
        sys.exit(EXIT_QUARANTINED)


@main.command()
@click.option(
    "--member", "target_tables", required=True, multiple=True, help="A member's target table (repeatable)."
)
@click.option(
    "--source",
    "source_dsn",
    metavar="DSN",
    help="A PostgreSQL source: unload each member's table from it at one log position and land "
    "that as the snapshot to refresh from (without it, the refresh waits for a landed snapshot).",
)
@SLOT_OPTION
def refresh(target_tables: tuple[str, ...], source_dsn: str | None, slot: str) -> None:
    """Request a full refresh of subscription members: the next Apply cycle of each one's set
    reloads it from a source snapshot. Refused while a session runs."""
    with _user_errors():
        source = _postgresql_source(source_dsn, slot)
        if source is None:
            lines = apply_commands.mark(list(target_tables), "refresh")
        else:
            lines = apply_commands.unload_from_source(list(target_tables), source, refresh=True)
        for line in lines:
            _echo(line)


@main.command()
@click.option(
    "--member", "target_tables", required=True, multiple=True, help="A member's target table (repeatable)."
)
@click.option("--source", "source_dsn", metavar="DSN", required=True, help="The PostgreSQL source.")
@SLOT_OPTION
def unload(target_tables: tuple[str, ...], source_dsn: str, slot: str) -> None:
    """Land a consistent snapshot of members' source tables from a PostgreSQL source, each read at
    one log position, without refreshing anything: once a cycle has read past it, `lakerep diff`
    (and the data test) compare the targets with it while the tables stay unchanged. Refused
    while a session runs."""
    with _user_errors():
        for line in apply_commands.unload_from_source(
            list(target_tables), _postgresql_source(source_dsn, slot), refresh=False
        ):
            _echo(line)


@main.command("mark-external-refresh")
@click.option(
    "--member", "target_tables", required=True, multiple=True, help="A member's target table (repeatable)."
)
@click.option("--start", "start", metavar="POS", help="Log position where the unload started.")
@click.option("--end", "end", metavar="POS", help="Log position where the unload ended.")
@click.option("--unload-start", is_flag=True, help="An unload starts now: record the end of the log.")
@click.option(
    "--unload-end", is_flag=True, help="The unload started by --unload-start ended now: record the window."
)
def mark_external_refresh(
    target_tables: tuple[str, ...], start: str | None, end: str | None, unload_start: bool, unload_end: bool
) -> None:
    """Record a refresh of members done by another tool (positions: 20 hex digits): Apply
    discards changes up to the start, mitigates errors up to the end, then mirrors. Refused,
    with nothing written, while a session runs, or when the window does not fit the log."""
    with _user_errors():
        kind = apply_commands.external_kind(start, end, unload_start, unload_end)
        for line in apply_commands.mark(list(target_tables), kind, start, end):
            _echo(line)


@main.command()
@click.option(
    "--retention-limit",
    type=click.IntRange(min=0, max=MAX_RETENTION_LIMIT),
    help="Minutes of changes kept whoever needs them, for this prune (default: the retention_limit var).",
)
def prune(retention_limit: int | None) -> None:
    """Prune the CD and UOW tables now (a running session prunes every PRUNE_INTERVAL).
    Refused while a session runs."""
    with _user_errors():
        for line in apply_commands.prune(retention_limit):
            _echo(line)


@main.command()
@click.option(
    "--member", "target_tables", multiple=True, help="A member's target table (default: every member)."
)
@click.option(
    "--at", "at", metavar="POS", help="Compare at this position (default: the target's synchpoint)."
)
@click.option(
    "--limit", type=click.IntRange(min=0), default=10, show_default=True, help="Keys shown per target."
)
def diff(target_tables: tuple[str, ...], at: str | None, limit: int) -> None:
    """Compare targets with a consistent snapshot of their source (an unload landed with start =
    end = the position): rows only in the source, only in the target, and differing (by key, with
    the columns). Exit 0 when every target equals its snapshot, 1 when one differs."""
    with _user_errors():
        report = apply_commands.diff(list(target_tables), at, limit)
    for line in report.lines:
        click.echo(line)
    if report.differs:
        _echo("targets differ from their source snapshots")
        sys.exit(EXIT_CHECK_FAILED)
    _echo(f"{len(report.counts)} targets equal their source snapshots")


@main.command()
@click.option("--records", type=click.IntRange(min=2), default=20_000, show_default=True)
@click.option("--seed", type=int, default=42, show_default=True)
@click.option("--batch-records", type=click.IntRange(min=1), default=5_000, show_default=True)
def demo(records: int, seed: int, batch_records: int) -> None:
    """Start a fresh lake, land a generated workload and run two cycles: the first over all but
    its last batch, which refreshes the subscriptions from snapshots taken while transactions
    went on (its build runs the unit tests too); the second over the last batch and a consistent
    snapshot of every source at its last commit, with which that build's data tests compare each
    target. Print the summaries.
    Refused while a session runs; holds the lake's critical section throughout."""
    last_batch = min(batch_records, records // 2)
    with _user_errors(), exclusive_lake():
        reset_lake()
        landed = land_workload(
            records=records - last_batch, seed=seed, batch_records=batch_records, progress=_echo
        )
        workload = landed.workload
        snapshot_rows = land_refresh_snapshots(workload)
        _echo(f"landed {snapshot_rows:,} source snapshot rows for the first refresh of the subscriptions")
        first = run_cycle()
        _echo(first.summary.line())
        _echo(first.unit_tests_line())
        _echo(f"landed the last batch: {land_next_batch(workload, last_batch):,} records")
        snapshot_rows = land_consistent_snapshots(workload)
        _echo(f"landed {snapshot_rows:,} rows of consistent source snapshots at the last commit, to compare")
        cycle = run_cycle(unit_tests=False)  # they test the models' SQL, not the lake: once is enough
        _echo(cycle.summary.line())
        _echo(capture_line(lake_session()))
        for line in apply_lines(lake_session()):
            _echo(line)
        _echo(cycle.snapshot_comparison_line() or "no target was compared with its source")
        _echo(
            f"oracle: {len(workload.oracle.commit_positions()):,} committed UOWs, "
            f"{len(workload.oracle.open_uows()):,} still open at the end of the log"
        )


@main.command()
@click.option("--seed", "seeds", type=int, multiple=True, help="Run this scenario (repeatable).")
@click.option("--first-seed", type=int, default=1, show_default=True, help="A soak's first seed.")
@click.option(
    "--count", type=click.IntRange(min=0), default=0, help="Soak: run this many scenarios from --first-seed."
)
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of the scenarios' lake (default: a new temporary folder; each scenario empties it).",
)
@click.option(
    "--recheck",
    is_flag=True,
    help="Run only the checks again, on the lake the last scenario left in --home.",
)
def scenarios(seeds: tuple[int, ...], first_seed: int, count: int, home: Path | None, recheck: bool) -> None:
    """Randomized crash scenarios against the oracle: workloads, restarts, refreshes, prunes and
    runners crashing at random points, then checks of targets, tables and trace. One line per
    scenario; a failing one prints its seed and the command reproducing it. Exit 1 if one failed."""
    import os
    import tempfile

    from lakerep.scenarios.driver import ScenarioFailed, recheck_lake, run_scenario

    chosen = list(seeds) or list(range(first_seed, first_seed + count))
    if recheck and (home is None or chosen):
        raise click.UsageError("--recheck takes --home (the scenario's lake) and no --seed or --count")
    if not chosen and not recheck:
        raise click.UsageError("give --seed N, or --count K (with --first-seed) for a soak")
    lake = home or Path(tempfile.mkdtemp(prefix="lakerep-scenarios-"))
    os.environ.update(
        {
            "LAKEREP_HOME": str(lake),
            "DBT_TARGET_PATH": str(lake / "target"),
            "DBT_LOG_PATH": str(lake / "logs"),
        }
    )
    with _user_errors():
        lake_home()  # --home is LAKEREP_HOME now: checked as the group checked the environment
    _echo(f"scenario lake: {os.environ['LAKEREP_HOME']}")
    if recheck:
        with _user_errors():
            try:
                seed, checks = recheck_lake()
            except AssertionError as failure:
                click.echo(f"lakerep: a check failed: {failure}", err=True)
                sys.exit(EXIT_CHECK_FAILED)
        _echo(f"scenario {seed}: {len(checks)} checks passed again")
        for line in checks:
            _echo(f"  {line}")
        return
    failed = []
    started = time.monotonic()
    with _user_errors():
        for seed in chosen:
            try:
                _echo(run_scenario(seed, progress=_echo).line())
            except ScenarioFailed as failure:
                failed.append(seed)
                click.echo(f"lakerep: {failure}", err=True)
    seconds = time.monotonic() - started
    passed = len(chosen) - len(failed)
    failures = f"; failed: {failed}" if failed else ""
    _echo(f"{passed} of {len(chosen)} scenarios passed in {seconds:,.0f} s{failures}")
    if failed:
        sys.exit(EXIT_CHECK_FAILED)


@main.command()
@click.option(
    "--home", type=click.Path(file_okay=False, path_type=Path), default=Path(".lakerep-cluster"),
    show_default=True, help="The cluster's folder: logs, metastore, warehouse.",
)  # fmt: skip
@click.option("--server", type=click.Choice(["connect", "thrift"]), default="connect", show_default=True)
@click.option("--driver-memory", default="2g", show_default=True, help="The server's (driver's) heap.")
@click.option("--executor-memory", default="2g", show_default=True, help="The executor's heap.")
def cluster(home: Path, server: str, driver_memory: str, executor_memory: str) -> None:
    """Start a Spark standalone cluster on 127.0.0.1 from the pyspark package (master, worker
    and a Spark Connect or Thrift server submitting to it, Delta on every class path), print the
    variables that point lakerep at it, and keep it up until Ctrl-C or SIGTERM."""
    import signal

    from lakerep import spark_cluster

    stop = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stop.set())
    with (
        _user_errors(),
        spark_cluster.running_cluster(
            home, server=server, driver_memory=driver_memory, executor_memory=executor_memory
        ) as running,
    ):
        _echo(f"cluster up: master {running.master_url}, {server} server on 127.0.0.1:{running.server_port}")
        for name, value in running.environment().items():
            click.echo(f"export {name}={value}")
        stop.wait()


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON, for machines.")
def status(as_json: bool) -> None:
    """The operator's one look: each session (running or not, its last cycle and lag), each source
    (restart tokens, the rule that chose them, CD_OLD/CD_NEW_SYNCHPOINT) and each subscription set
    (status, synchpoint, pending refreshes, exceptions). Exits 7 when a set is STOPPED or in a GAP."""
    from lakerep import status as lake_status

    with _user_errors():
        result = lake_status.status(lake_home())
    if as_json:
        click.echo(lake_status.as_json(result))
    else:
        for line in lake_status.lines(result):
            _echo(line)
    if result["attention"]:
        for line in result["attention"]:
            click.echo(f"lakerep: {line}", err=True)
        sys.exit(EXIT_SET_NEEDS_ATTENTION)


@main.command()
@click.option("--check", is_flag=True, help="Only report files that differ from the declaration.")
def scaffold(check: bool) -> None:
    """Write the per-table CD/CCD stubs and contracts from the registration declaration."""
    from lakerep.scaffold import scaffold as write_scaffold

    with _user_errors():
        differing = write_scaffold(check=check)
    for path in differing:
        _echo(f"{'out of date' if check else 'wrote'}: {path}")
    if check and differing:
        click.echo("lakerep: run `lakerep scaffold` to regenerate them", err=True)
        sys.exit(EXIT_USER_ERROR)


@main.command()
@click.option("--from-postgresql", "dsn", metavar="DSN", required=True, help="The source server.")
@click.option(
    "--subscribe",
    metavar="APPLY_QUAL.SET",
    help="Also subscribe a user copy of each table (target <table>_copy) in this set.",
)
@click.option(
    "--only",
    is_flag=True,
    help="Declare these tables alone: the demo's tables, their members and any others go "
    "(needs --subscribe).",
)
@click.option(
    "--sync",
    is_flag=True,
    help="Declare registered TABLES again, as the lake's schema history has seen their columns "
    "change (docs/schema-evolution.md), for you to commit; resumes a table an unsafe change stopped.",
)
@click.argument("tables", nargs=-1, required=True)
def register(dsn: str, subscribe: str | None, only: bool, sync: bool, tables: tuple[str, ...]) -> None:
    """Register TABLES (schema.table) as the PostgreSQL catalog describes them (columns, types,
    key), then write their models as `lakerep scaffold` does."""
    from lakerep.scaffold import scaffold as write_scaffold
    from lakerep.sources.catalog import register_from_postgresql

    with _user_errors():
        if sync:
            if only or subscribe:
                raise click.UsageError("--sync declares registered tables again: no --only or --subscribe")
            from lakerep.lake import lake_home, lake_session
            from lakerep.sources.declaration_sync import sync_declarations
            from lakerep.sources.schema_history import read_history

            lake_home()
            for line in sync_declarations(dsn, tables, PROJECT_DIR, read_history(lake_session())):
                _echo(line)
        else:
            for name in register_from_postgresql(dsn, tables, PROJECT_DIR, only=only, subscribe=subscribe):
                _echo(f"registered: {name}")
        for path in write_scaffold():
            _echo(f"wrote: {path}")


@main.command()
@click.option(
    "--records",
    type=click.IntRange(min=0),
    default=100_000,
    show_default=True,
    help="Log records of history, captured in one cycle (0: none).",
)
@click.option(
    "--cycle-records",
    type=click.IntRange(min=0),
    default=10_000,
    show_default=True,
    help="Log records of the next cycle, measured on top of the history.",
)
@click.option("--seed", type=int, default=42, show_default=True)
@click.option("--batch-records", type=click.IntRange(min=1), default=100_000, show_default=True)
@click.option(
    "--tables",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    help="Registered tables of the wide case (changes in 5 of them), in a copy of the project (0: none).",
)
@click.option(
    "--refresh-rows",
    type=click.IntRange(min=0),
    default=200_000,
    show_default=True,
    help="Rows of the snapshot a member is refreshed from by one cycle with its data tests, after the "
    "same at half of them, then diffed (0: none).",
)
def bench(
    records: int, cycle_records: int, seed: int, batch_records: int, tables: int, refresh_rows: int
) -> None:
    """Measure: floor, a history, one more cycle, an idle cycle, a refresh, a wide project; print
    figures, one line per case."""
    from lakerep.bench import run_bench

    with _user_errors():
        for line in run_bench(
            records=records,
            seed=seed,
            batch_records=batch_records,
            cycle_records=cycle_records,
            tables=tables,
            refresh_rows=refresh_rows,
        ):
            click.echo(line)


@main.command()
@click.option(
    "--format",
    "file_format",
    type=click.Choice(["debezium", "canonical"]),
    required=True,
    help="debezium: Debezium change events, one JSON value per line (Kafka Connect's FileStreamSink); "
    "canonical: JSON lines of the source_log columns.",
)
@click.option(
    "--decimals-as-text",
    is_flag=True,
    help="debezium: the connector writes decimals as text (decimal.handling.mode=string). Without "
    "the schema wrapper a whole number's digits may be base64 of the precise mode too, and are "
    "refused unless this says which.",
)
@click.argument(
    "paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
def land(file_format: str, decimals_as_text: bool, paths: tuple[Path, ...]) -> None:
    """Land files of log records as one landing batch. A file that is no JSON lines (the line is
    named), or that has landed before (same name and content), is refused and nothing lands.
    Refused while a session runs."""
    from lakerep.land_files import land_files

    with _user_errors():
        for line in land_files(list(paths), file_format, decimals_as_text):
            _echo(line)


def _postgresql_source(dsn: str | None, slot: str) -> PostgresqlSource | None:
    """The PostgreSQL source of every registered table (registered by the server's own schema
    and table names), or None without a DSN."""
    return None if dsn is None else PostgresqlSource.of_registrations(dsn, load_registrations(), slot)


# The errors a user can cause, and their exit codes (DbtFailed carries dbt's own).
_USER_ERRORS = {
    ContinuityBroken: EXIT_START_REFUSED,  # a SourceError: before it, so its own code wins
    SourceError: EXIT_USER_ERROR,
    StartRefused: EXIT_START_REFUSED,
    SessionLocked: EXIT_SESSION_LOCKED,
    SessionActive: EXIT_SESSION_LOCKED,
    LakeInUse: EXIT_SESSION_LOCKED,
    CriticalSectionBusy: EXIT_SESSION_LOCKED,
    LeaseLost: EXIT_SESSION_LOCKED,
    dbt.OperationRejected: EXIT_USER_ERROR,
    LandingNotEmpty: EXIT_USER_ERROR,
    RegistrationError: EXIT_USER_ERROR,
    TokenFileError: EXIT_USER_ERROR,
    TokenFileNeeded: EXIT_USER_ERROR,
    LockFileError: EXIT_USER_ERROR,
    ValueError: EXIT_USER_ERROR,
}


@contextmanager
def _user_errors() -> Iterator[None]:
    """Errors a user can cause end the command with one line and a documented exit code; any
    other error is a crash (exit 2, as dbt's own): its traceback, then a line naming it, never
    exit 1, which says a model or data test failed."""
    try:
        yield
    except (dbt.DbtFailed, *_USER_ERRORS) as error:
        click.echo(f"lakerep: {error}", err=True)
        if isinstance(error, dbt.DbtFailed):
            sys.exit(error.exit_code)
        sys.exit(next(code for kind, code in _USER_ERRORS.items() if isinstance(error, kind)))
    except click.ClickException:  # a usage error: click reports it
        raise
    except Exception as error:
        traceback.print_exc()
        click.echo(f"lakerep: crashed: {type(error).__name__}: {error}", err=True)
        sys.exit(EXIT_CRASHED)


if __name__ == "__main__":
    main()
