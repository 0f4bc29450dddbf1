"""The refresh cases of `lakerep bench` (issue 61): a member refreshed from a landed snapshot of
`rows` rows, by the cycle that loads it with its data tests, then `lakerep diff` of that target;
and the same at half the rows first, so that the figures say how the cost grows with a table.

The snapshot is the workload's own table at its last commit (start and end one position, so the
data test and the diff can compare with it) padded with rows of new keys to `rows`: the
generator keeps a table near a few thousand rows, and a refresh's cost is its rows'.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

from lakerep import apply_commands, landing
from lakerep.bench_floor import spark_jobs
from lakerep.pipeline import run_cycle
from lakerep.subscriptions import load_members
from lakerep.summary import relation_name
from lakerep.workload.generator import Workload

REFRESHED = "customers_copy"
"""The member refreshed: a copy target, keyed by one string column."""


def refresh_lines(workload: Workload, rows: int, run_vars: dict) -> Iterator[str]:
    """The refresh at rows // 2, then at rows, and the diff of the larger target: detail lines,
    then the `bench refresh-half`, `bench refresh` and `bench diff` case lines."""
    from lakerep.bench import CaseFigures, metered
    from lakerep.lake import lake_session

    spark = lake_session()
    member = next(member for member in load_members() if member.target_table == REFRESHED)
    cases = []
    for name, size in (("refresh-half", rows // 2), ("refresh", rows)):
        snapshot = _padded_snapshot(workload, member, size)
        landing.land_snapshot_rows(spark, snapshot.to_landing_rows())
        apply_commands.mark([REFRESHED], "refresh")
        with metered() as meter:
            cycle = run_cycle(quiet=True, command="build", run_vars=run_vars, unit_tests=False)
        held = spark.sql(f"select count(*) from {relation_name(REFRESHED)}").collect()[0][0]
        yield (
            f"  {name}: {REFRESHED} refreshed from {size:,} snapshot rows and tested in one cycle "
            f"(dbt build) {cycle.seconds:.1f} s; the target holds {held:,} rows"
        )
        yield f"    {cycle.snapshot_comparison_line()}"
        cases.append(CaseFigures(name, cycle.seconds, size, meter.statements, meter.commits, meter.jobs))
    jobs = spark_jobs(spark)
    started = time.perf_counter()
    report = apply_commands.diff([REFRESHED])
    seconds = time.perf_counter() - started
    yield f"  diff of {REFRESHED}: {report.lines[0] if report.lines else 'no line'}"
    cases.append(CaseFigures("diff", seconds, rows, 0, 0, spark_jobs(spark) - jobs))
    for figures in cases:
        yield figures.line()
    half, full = cases[0].seconds, cases[1].seconds
    yield f"bench refresh ratio: refresh/refresh-half {full / half:.2f} (at most 2.2: cost grows linearly)"


def _padded_snapshot(workload: Workload, member, rows: int):
    """The member's source at the workload's last commit, with rows of new keys added up to `rows`."""
    last = workload.oracle.commit_positions()[-1]
    snapshot = workload.snapshot(member.source, last, last)
    (key,) = member.registration.key_columns
    template = snapshot.rows[0]
    padding = [{**template, key: f"BENCH-{number:08d}"} for number in range(rows - len(snapshot.rows))]
    return replace(snapshot, rows=[*snapshot.rows, *padding])
