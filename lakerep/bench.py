"""`lakerep bench`: figures for one workload size — throughput, time per stage, peak memory.

Two measurements: landing a history of `records` log records and capturing it in one cycle,
then one more cycle of `cycle_records` log records on top of it (what a pipeline pays every
COMMIT_INTERVAL). With `records` 0 the second cycle runs on an empty history. Cycles are
`dbt run` (models only): data tests are a separate, optional step. Figures are printed, never
asserted: targets live here, not in timed tests.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from pathlib import Path

from lakerep import landing
from lakerep.lake import lake_session, reset_lake
from lakerep.pipeline import CycleResult, land_workload, run_cycle
from lakerep.workload.config import WorkloadConfig
from lakerep.workload.generator import Workload


def _jvm_peak_rss_mib() -> float | None:
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


def _cycle_lines(title: str, rows: int, land_seconds: float, cycle: CycleResult) -> Iterator[str]:
    yield f"  {title}: {rows:,} rows landed in {land_seconds:.1f} s, cycle (dbt run) {cycle.seconds:.1f} s, "
    yield f"    {rows / max(land_seconds + cycle.seconds, 1e-9):,.0f} rows/s (land + cycle)"
    for model, seconds in sorted(cycle.model_seconds.items(), key=lambda item: -item[1])[:8]:
        yield f"    {model:<28}{seconds:8.1f} s"


def run_bench(*, records: int, seed: int, batch_records: int, cycle_records: int) -> Iterator[str]:
    started = time.perf_counter()
    lake_session()
    reset_lake()
    yield f"bench: seed {seed}; session start + reset {time.perf_counter() - started:.1f} s"
    spark = lake_session()
    if records:
        history = land_workload(records=records, seed=seed, batch_records=batch_records)
        workload = history.workload
        yield (
            f"  history: {records:,} log records generated in {history.generate_seconds:.1f} s "
            f"({history.batches} landing batches)"
        )
        cycle = run_cycle(quiet=True, command="run")
        yield from _cycle_lines("history cycle", history.records, history.land_seconds, cycle)
    else:
        workload = Workload(seed=seed, config=WorkloadConfig())
        yield "  history: none"
    if cycle_records:
        batch = workload.next_batch(cycle_records)
        landed_at = time.perf_counter()
        _, rows = landing.land_log_records(spark, batch.records)
        land_seconds = time.perf_counter() - landed_at
        cycle = run_cycle(quiet=True, command="run")
        yield from _cycle_lines(f"next cycle of {cycle_records:,} log records", rows, land_seconds, cycle)
        yield f"  summary: {cycle.summary.line()}"
    python_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    jvm_peak = _jvm_peak_rss_mib()
    yield f"  peak memory: python {python_peak:,.0f} MiB" + (
        f", Spark driver JVM {jvm_peak:,.0f} MiB" if jvm_peak is not None else ""
    )
