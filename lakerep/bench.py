"""`lakerep bench`: figures for one workload size — throughput, time per stage, peak memory.

Cases, on one generated workload: `floor` (the landed history read once and written once to a Delta
table: what any design must pay), `history` (landing and capturing a history of `records` log
records in one cycle, with source snapshots from which that cycle refreshes the members, so that
later cycles apply their changes as a production cycle does), `cycle` (one more cycle of
`cycle_records` log records on top of it: what a pipeline pays every COMMIT_INTERVAL; with it
`cycle-floor`, lakerep.bench_floor, and `land`, its landing batch against its floor), `idle` (a
running session's next cycle with nothing landed: the runner's one query deciding there is nothing
to do), `idle-dbt` (the same cycle run through dbt anyway, as a plain `dbt run` does),
`data-tests` (every data test of the project once on that lake: what a cycle that tests adds),
`refresh` (a member refreshed from a snapshot of `refresh_rows` rows by one cycle with its data
tests, after the same at half the rows, then `lakerep diff` of it: lakerep.bench_refresh),
then `wide` (`tables` registered tables with changes in five, in a copy of the project:
lakerep.bench_wide; what each untouched table adds is measured against a copy that registers only
the five). With `records` 0 the cycle runs on an empty history. Cycles are `dbt run`
(models only; the data tests are their own case), all of one session run, as `lakerep run`
runs them: the history cycle is the run's first, the others are its later cycles, which make no
restart decision. Each case counts the SQL statements dbt sends and the Delta commits among them
(writes, plus one per landing batch). Figures are printed, never asserted: targets live here, not
in timed tests.
"""

from __future__ import annotations

import os
import re
import resource
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lakerep import dbt, landing
from lakerep.bench_floor import run_cycle_floor, spark_jobs, table_versions
from lakerep.lake import lake_session, reset_lake
from lakerep.pipeline import CycleResult, land_refresh_snapshots, land_workload, run_cycle
from lakerep.registrations import load_registrations
from lakerep.session import CycleReport, cycle_is_idle, highest_landed_batch
from lakerep.subscriptions import load_members
from lakerep.summary import relation_name
from lakerep.workload.config import WorkloadConfig
from lakerep.workload.generator import Workload


def jvm_peak_rss_mib() -> float | None:
    """Peak resident memory of this process's Spark driver JVM (Linux /proc), if known."""
    from pyspark import SparkContext

    gateway = getattr(SparkContext, "_gateway", None)
    process = getattr(gateway, "proc", None)
    if process is None:
        return None
    status = Path(f"/proc/{process.pid}/status")
    if not status.exists():
        return None
    for line in status.read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


WRITE_STATEMENT = re.compile(
    r"^\s*(merge\s+into|insert\s+(into|overwrite)|create\s+(or\s+replace\s+)?table|delete\s+from|update\s"
    r"|optimize\s)",
    re.IGNORECASE,
)
"""A statement that commits to a Delta table (dbt's query comment and SQL comments stripped first;
an `optimize` commits only when it compacts)."""


@dataclass
class StatementMeter:
    """A dbt event callback counting the SQL statements dbt sends, and the writes among them;
    `jobs` is set when the metered block ends: the Spark jobs this JVM ran inside it."""

    statements: int = 0
    commits: int = 0
    jobs: int = 0

    def __call__(self, event) -> None:
        if event.info.name != "SQLQuery":
            return
        self.statements += 1
        sql = re.sub(r"/\*.*?\*/|--[^\n]*", " ", event.data.sql, flags=re.DOTALL)
        if WRITE_STATEMENT.match(sql):
            self.commits += 1


@contextmanager
def metered() -> Iterator[StatementMeter]:
    from lakerep.bench_floor import spark_jobs

    spark = lake_session()
    meter = StatementMeter()
    jobs = spark_jobs(spark)
    dbt.EVENT_CALLBACKS.append(meter)
    try:
        yield meter
    finally:
        dbt.EVENT_CALLBACKS.remove(meter)
        meter.jobs = spark_jobs(spark) - jobs


@dataclass(frozen=True)
class LandFigures:
    """The cycle's landing batch written by `lakerep.landing` from the generator's records, against
    its floor: the same records appended to an empty Delta table, the cycle floor's first write."""

    seconds: float
    records: int
    commits: int
    jobs: int
    floor_seconds: float

    def line(self) -> str:
        rate = self.records / self.seconds if self.seconds > 0 else 0.0
        ratio = self.seconds / self.floor_seconds if self.floor_seconds > 0 else float("nan")
        return (
            f"bench land: {self.seconds:.1f} s, {rate:,.0f} records/s, {self.commits} commits, "
            f"{self.jobs} jobs; land-floor {self.floor_seconds:.1f} s; ratio land/land-floor {ratio:.1f}"
        )


@dataclass(frozen=True)
class CaseFigures:
    case: str
    seconds: float
    records: int
    statements: int
    commits: int
    jobs: int = 0

    def line(self) -> str:
        rate = self.records / self.seconds if self.records and self.seconds > 0 else 0.0
        return (
            f"bench {self.case}: {self.seconds:.1f} s, {rate:,.0f} records/s, "
            f"{self.statements} statements, {self.commits} commits, {self.jobs} jobs"
        )


def _cycle_lines(title: str, rows: int, land_seconds: float, cycle: CycleResult) -> Iterator[str]:
    yield f"  {title}: {rows:,} rows landed in {land_seconds:.1f} s, cycle (dbt run) {cycle.seconds:.1f} s, "
    yield f"    {rows / max(land_seconds + cycle.seconds, 1e-9):,.0f} rows/s (land + cycle)"
    for model, seconds in sorted(cycle.model_seconds.items(), key=lambda item: -item[1])[:8]:
        yield f"    {model:<28}{seconds:8.1f} s"


def run_bench(
    *, records: int, seed: int, batch_records: int, cycle_records: int, tables: int = 0, refresh_rows: int = 0
) -> Iterator[str]:
    started = time.perf_counter()
    lake_session()
    reset_lake()
    yield f"bench: seed {seed}; session start + reset {time.perf_counter() - started:.1f} s"
    spark = lake_session()
    cases: list[CaseFigures] = []
    # The cycles of one session run, as `lakerep run` runs them: one parse of the project.
    with dbt.parse_once():
        # A continuous run's cycles between its prunes.
        run_vars = {"lakerep_run_id": f"bench-{uuid.uuid4()}", "lakerep_prune": False}
        if records:
            with metered() as meter:
                history = land_workload(records=records, seed=seed, batch_records=batch_records)
                unload_started = time.perf_counter()
                snapshot_rows = land_refresh_snapshots(history.workload)
                land_seconds = history.land_seconds + time.perf_counter() - unload_started
                cycle = run_cycle(quiet=True, command="run", run_vars=run_vars)
            workload = history.workload
            landed_batches = landing.next_landing_batch(spark) - 1  # the lake was reset: from 1
            yield (
                f"  history: {records:,} log records generated in {history.generate_seconds:.1f} s "
                f"({history.batches} landing batches), and {snapshot_rows:,} snapshot rows that "
                "refresh the members (a set with DISABLE_REFRESH stops with a gap)"
            )
            yield from _cycle_lines("history cycle", history.records, land_seconds, cycle)
            cases.append(
                CaseFigures(
                    "history",
                    land_seconds + cycle.seconds,
                    history.records,
                    meter.statements,
                    meter.commits + landed_batches,
                    meter.jobs,
                )
            )
            cases.insert(0, _floor(spark, history.records))
        else:
            workload = Workload(seed=seed, config=WorkloadConfig())
            yield "  history: none"
        if cycle_records:
            batch = workload.next_batch(cycle_records)
            members = load_members()
            targets_before = table_versions(spark, [relation_name(member.target_table) for member in members])
            log_versions = table_versions(spark, [landing.SOURCE_LOG_TABLE])
            with metered() as meter:
                landed_at, jobs_before = time.perf_counter(), spark_jobs(spark)
                landed_batch, rows = landing.land_log_records(spark, batch.records)
                land_seconds, land_jobs = time.perf_counter() - landed_at, spark_jobs(spark) - jobs_before
                cycle = run_cycle(quiet=True, command="run", run_vars=run_vars)
            # the landing table's commits meanwhile are the landing's: the cycle writes none there
            land_commits = _commits_since(spark, log_versions)
            yield from _cycle_lines(f"next cycle of {cycle_records:,} log records", rows, land_seconds, cycle)
            yield f"  summary: {cycle.summary.line()}"
            cases.append(
                CaseFigures(
                    "cycle",
                    land_seconds + cycle.seconds,
                    rows,
                    meter.statements,
                    meter.commits + land_commits,
                    meter.jobs,
                )
            )
            # The floor writes the targets the cycle wrote (a set that waits or stops writes none).
            written = table_versions(spark, list(targets_before))
            targets = {name: version for name, version in targets_before.items() if written[name] > version}
            floor = run_cycle_floor(spark, batch=landed_batch, members=members, targets=targets)
            cases.append(
                CaseFigures("cycle-floor", floor.seconds, rows, floor.statements, floor.commits, floor.jobs)
            )
            land = LandFigures(land_seconds, rows, land_commits, land_jobs, floor.append_seconds)
        cases.extend(_idle_cases(spark, run_vars))
        data_tests, nodes, failed = _data_tests_case()
        yield f"  data tests: {nodes} test nodes (dbt test) in {data_tests.seconds:.1f} s"
        if failed:
            yield f"  data tests FAILED: {failed}"
        cases.append(data_tests)
        if refresh_rows and records:
            from lakerep.bench_refresh import refresh_lines

            refresh = list(refresh_lines(workload, refresh_rows, run_vars))
    if tables and cycle_records:
        yield from _wide_case(cases, tables=tables, seed=seed, cycle_records=cycle_records)
    python_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    jvm_peak = jvm_peak_rss_mib()
    yield f"  peak memory: python {python_peak:,.0f} MiB" + (
        f", Spark driver JVM {jvm_peak:,.0f} MiB" if jvm_peak is not None else ""
    )
    for figures in cases:
        yield figures.line()
    if cycle_records:
        yield land.line()
    yield ratio_line(cases)
    if refresh_rows and records:
        yield from refresh


def _commits_since(spark, versions: dict[str, int]) -> int:
    """The commits the tables of `versions` (relation -> Delta version) have had since."""
    now = table_versions(spark, list(versions))
    return sum(now[table] - version for table, version in versions.items())


def ratio_line(cases: list[CaseFigures]) -> str:
    """The cycle against its floor and the history against the raw floor, measured in the same run."""
    seconds = {figures.case: figures.seconds for figures in cases}

    def ratio(case: str, floor: str) -> str:
        if case not in seconds or not seconds.get(floor):
            return "n/a"
        return f"{seconds[case] / seconds[floor]:.1f}"

    return (
        f"bench ratio: cycle/cycle-floor {ratio('cycle', 'cycle-floor')}, "
        f"history/floor {ratio('history', 'floor')}"
    )


def _floor(spark, records: int) -> CaseFigures:
    """The landed history read once and written once to a Delta table (and dropped again)."""
    statements = [
        "create schema if not exists lakerep_bench",
        "create or replace table lakerep_bench.floor using delta "
        f"as select * from {landing.SOURCE_LOG_TABLE}",
    ]
    jobs = spark_jobs(spark)
    started = time.perf_counter()
    for statement in statements:
        spark.sql(statement)
    seconds = time.perf_counter() - started
    spark.sql("drop schema lakerep_bench cascade")
    commits = sum(1 for statement in statements if WRITE_STATEMENT.match(statement))
    return CaseFigures("floor", seconds, records, len(statements), commits, spark_jobs(spark) - jobs)


def _idle_cases(spark, run_vars: dict) -> Iterator[CaseFigures]:
    """A running session's next cycle with nothing landed, as the runner decides it, then the same
    cycle through dbt (what a plain `dbt run` with nothing new costs)."""
    started = time.perf_counter()
    last_read = spark.sql(
        f"select coalesce(max(up_to_batch), 0) from {relation_name('capture_cycles')} "
        "where record_kind = 'cycle'"
    ).collect()[0][0]
    last = CycleReport(0, "bench", False, 0, 0, 0, None, None, up_to_batch=last_read)
    if not cycle_is_idle(last, highest_landed_batch(spark)):
        raise RuntimeError("the bench's idle cycle found new landing batches")
    yield CaseFigures("idle", time.perf_counter() - started, 0, 0, 0)
    with metered() as meter:
        cycle = run_cycle(quiet=True, command="run", run_vars=run_vars)
    yield CaseFigures("idle-dbt", cycle.seconds, 0, meter.statements, meter.commits, meter.jobs)


def _data_tests_case() -> tuple[CaseFigures, int, str]:
    """Every data test of the project once (`dbt test`, unit tests left out), how many test
    nodes that is, and what failed (a failure is printed, and the bench goes on)."""
    with metered() as meter:
        started = time.perf_counter()
        outcome = dbt.invoke(["test", "--exclude-resource-type", "unit_test"], check=False, quiet=True)
        seconds = time.perf_counter() - started
    nodes = sum(1 for result in outcome.result.results if result.node.resource_type == "test")  # not hooks
    return (
        CaseFigures("data-tests", seconds, 0, meter.statements, meter.commits, meter.jobs),
        nodes,
        outcome.detail,
    )


def _wide_case(cases: list[CaseFigures], **wide) -> Iterator[str]:
    """The wide case, in a copy of the project (lakerep.bench_wide), then what each registered
    table and member with nothing in the window adds: against the same cycle in a copy that
    registers only the changed tables (the narrow control: the same seed, workload and changes,
    no untouched table). The cycle case is no control: its members apply from snapshots, the wide
    copy's wait for one, over a history of another size. Neither copy lands a snapshot, so an
    untouched member is measured in a set waiting for a refresh, never in one that applies."""
    from lakerep.bench_wide import CHANGED_WIDE_TABLES, run_wide

    home = Path(os.environ.get("LAKEREP_HOME", ".lakerep"))
    lines = run_wide(scratch=home / "bench-wide", **wide)
    yield from (line for line in lines if line.startswith("  wide"))
    figures = _wide_figures(lines)
    narrow_tables = len(load_registrations()) + CHANGED_WIDE_TABLES
    untouched = wide["tables"] - narrow_tables
    if untouched > 0:
        narrow = _wide_figures(run_wide(scratch=home / "bench-narrow", **{**wide, "tables": narrow_tables}))
        yield (
            f"  narrow control: {narrow_tables} registered, the same changes: {narrow.seconds:.1f} s, "
            f"{narrow.statements} statements, {narrow.commits} commits"
        )
        yield untouched_cost_line(figures, narrow, untouched)
    cases.append(figures)


def _wide_figures(lines: list[str]) -> CaseFigures:
    """The figures of a wide copy's run, from the lines it printed."""
    case_lines = [line for line in lines if line.startswith("bench wide:")]
    if not case_lines:
        raise RuntimeError("the wide case printed no `bench wide:` line:\n" + "\n".join(lines[-20:]))
    return parse_case_line(case_lines[-1])


def untouched_cost_line(wide: CaseFigures, narrow: CaseFigures, untouched: int) -> str:
    """What each of `untouched` registered tables (and members) with nothing in the window adds to
    the wide cycle, against the narrow control's."""
    return (
        f"  wide: each of the {untouched} registered tables (and members) with nothing in the window "
        f"adds {(wide.seconds - narrow.seconds) / untouched:.2f} s, "
        f"{(wide.statements - narrow.statements) / untouched:.1f} statements and "
        f"{(wide.commits - narrow.commits) / untouched:.1f} commits"
    )


CASE_LINE = re.compile(
    r"^bench (?P<case>\S+): (?P<seconds>[\d.]+) s, (?P<rate>[\d,]+) records/s, "
    r"(?P<statements>\d+) statements, (?P<commits>\d+) commits, (?P<jobs>\d+) jobs$"
)


def parse_case_line(line: str) -> CaseFigures:
    """A case's figures back from its summary line (CaseFigures.line)."""
    found = CASE_LINE.match(line)
    if found is None:
        raise RuntimeError(f"not a bench case line: {line!r}")
    seconds = float(found["seconds"])
    records = round(int(found["rate"].replace(",", "")) * seconds)
    return CaseFigures(
        found["case"], seconds, records, int(found["statements"]), int(found["commits"]), int(found["jobs"])
    )
