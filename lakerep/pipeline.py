"""What the commands do, apart from parsing options: land a workload, run a cycle."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from lakerep import dbt, landing
from lakerep.lake import lake_session
from lakerep.subscriptions import load_members
from lakerep.summary import RunSummary, highest_staged_batch, summarize
from lakerep.workload.generator import Workload, WorkloadConfig

MATCHES_SNAPSHOT = "lakerep_matches_source_snapshot"
HAS_SNAPSHOT = "lakerep_has_a_snapshot_to_compare"
"""The data tests that compare each target with its source, and warn when they could not."""

APPLY_MODELS = "path:models/apply"
"""dbt selector of Apply's models (subscriptions, targets, pruning): `--exclude` it to run Capture alone."""


class LandingNotEmpty(RuntimeError):
    """Generating into a lake that already holds a log would collide with its positions."""


@dataclass(frozen=True)
class LandedWorkload:
    workload: Workload
    batches: int
    records: int
    generate_seconds: float
    land_seconds: float


def land_workload(
    *,
    records: int,
    seed: int,
    batch_records: int,
    landing_order: str = "log",
    progress: Callable[[str], None] = lambda _: None,
) -> LandedWorkload:
    """Generate `records` log records from `seed` and land them batch by batch in an empty lake."""
    spark = lake_session()
    already = spark.sql(f"select count(*) from {landing.SOURCE_LOG_TABLE}").collect()[0][0]
    if already:
        raise LandingNotEmpty(
            f"{landing.SOURCE_LOG_TABLE} already holds {already:,} records; "
            "a generated workload starts a new source log: pass --fresh to start over"
        )
    workload = Workload(seed=seed, config=WorkloadConfig(landing_order=landing_order))
    generate_seconds = land_seconds = 0.0
    landed = batches = 0
    remaining = records
    while remaining > 0:
        size = min(batch_records, remaining)
        started = time.perf_counter()
        batch = workload.next_batch(size)
        generated = time.perf_counter()
        _, count = landing.land_log_records(spark, batch.records)
        land_seconds += time.perf_counter() - generated
        generate_seconds += generated - started
        landed += count
        batches += 1
        remaining -= size
        progress(f"landed batch {batches}: {count:,} records")
    return LandedWorkload(workload, batches, landed, generate_seconds, land_seconds)


@dataclass(frozen=True)
class CycleResult:
    summary: RunSummary
    seconds: float
    model_seconds: dict[str, float]
    # (generic test, model tested) -> dbt's status (pass, warn, fail, error) of each data test built
    test_statuses: dict[tuple[str, str], str] = field(default_factory=dict)
    unit_tests_passed: int = 0  # a failing unit test fails the build

    def unit_tests_line(self) -> str:
        return f"unit tests of the models' decisions: {self.unit_tests_passed} passed"

    def snapshot_comparison_line(self) -> str | None:
        """What the build's snapshot tests found per target (None: none ran). Equal only when
        lakerep_matches_source_snapshot passed and lakerep_has_a_snapshot_to_compare said it
        compared; a target either test errored or skipped is unchecked, never equal."""
        targets = sorted({t for (test, t) in self.test_statuses if test in (MATCHES_SNAPSHOT, HAS_SNAPSHOT)})
        if not targets:
            return None
        found: dict[str, list[str]] = {"equal": [], "differ": [], "not compared": [], "unchecked": []}
        for target in targets:
            matches = self.test_statuses.get((MATCHES_SNAPSHOT, target))
            compared = self.test_statuses.get((HAS_SNAPSHOT, target))
            if matches == "fail":
                found["differ"].append(target)
            elif matches == "pass" and compared == "pass":
                found["equal"].append(target)
            elif matches == "pass" and compared == "warn":
                found["not compared"].append(target)
            else:
                found["unchecked"].append(target)
        line = (
            "compared with a consistent snapshot of their source at their synchpoint: "
            f"{len(found['equal'])} targets equal ({', '.join(found['equal']) or 'none'}), "
            f"{len(found['differ'])} differ ({', '.join(found['differ']) or 'none'}); "
            f"not compared, with a warning: {', '.join(found['not compared']) or 'none'}"
        )
        if found["unchecked"]:
            line += f"; unchecked (a test errored or was skipped): {', '.join(found['unchecked'])}"
        return line


def land_refresh_snapshots(workload: Workload) -> int:
    """Unload every subscribed source that may be refreshed (DISABLE_REFRESH off) over the last
    tenth of the commits written, while the workload's transactions go on, and land the
    snapshots; a first Apply cycle refreshes its targets from them. Returns the rows landed."""
    commits = workload.oracle.commit_positions()
    if not commits:
        return 0
    start, end = commits[len(commits) * 9 // 10], commits[-1]
    sources = {member.source for member in load_members() if not member.registration.disable_refresh}
    spark = lake_session()
    rows = 0
    for source in sorted(sources):
        _, count = landing.land_snapshot_rows(spark, workload.snapshot(source, start, end).to_landing_rows())
        rows += count
    return rows


def land_consistent_snapshots(workload: Workload) -> int:
    """Unload every subscribed source at the last commit written, with no transaction going on
    (start = end): the snapshots the data test lakerep_matches_source_snapshot compares each
    target with once Apply has reached that commit. Like every snapshot landed, a complete CCD
    takes them in (a condensed one then holds, per key, the snapshot's row at that commit).
    Returns the rows landed."""
    commits = workload.oracle.commit_positions()
    if not commits:
        return 0
    spark = lake_session()
    rows = 0
    for source in sorted({member.source for member in load_members()}):
        snapshot = workload.snapshot(source, commits[-1], commits[-1])
        _, count = landing.land_snapshot_rows(spark, snapshot.to_landing_rows())
        rows += count
    return rows


def land_next_batch(workload: Workload, records: int) -> int:
    """Land the workload's next batch of `records` log records; returns the records landed."""
    _, count = landing.land_log_records(lake_session(), workload.next_batch(records).records)
    return count


def run_cycle(
    *,
    quiet: bool = False,
    command: str = "build",
    select: str | None = None,
    capture_only: bool = False,
    run_vars: dict | None = None,
    unit_tests: bool = True,
) -> CycleResult:
    """One pipeline cycle: `dbt build` of the whole project (or `dbt run`: the same models
    without the data tests; `select` narrows it; `capture_only` leaves Apply out; without
    `unit_tests` the build leaves them out, as a production cycle does), then the summary of what
    it read. `run_vars` are dbt vars, such as the session run the cycle belongs to
    (lakerep_run_id; without it each cycle is a run of its own)."""
    spark = lake_session()
    before = highest_staged_batch(spark)
    started = time.perf_counter()
    selection = [
        *(["--select", select] if select else []),
        *(["--exclude", APPLY_MODELS] if capture_only else []),
        *(["--vars", json.dumps(run_vars)] if run_vars else []),
        *([] if unit_tests or command != "build" else ["--exclude-resource-type", "unit_test"]),
    ]
    outcome = dbt.invoke([command, *selection], quiet=quiet)
    seconds = time.perf_counter() - started
    model_seconds = {
        result.node.name: result.execution_time
        for result in outcome.result.results
        if result.node.resource_type == "model"
    }
    test_statuses = {
        (result.node.test_metadata.name, result.node.attached_node.split(".")[-1]): str(result.status)
        for result in outcome.result.results
        if result.node.resource_type == "test"
        and getattr(result.node, "test_metadata", None)
        and result.node.attached_node
    }
    unit_tests_passed = sum(
        1
        for result in outcome.result.results
        if result.node.resource_type == "unit_test" and str(result.status) == "pass"
    )
    return CycleResult(summarize(spark, before), seconds, model_seconds, test_statuses, unit_tests_passed)
