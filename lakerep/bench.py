"""`lakerep bench`: figures for one workload size — throughput, time per stage, peak memory.

Figures are printed, never asserted: targets live here, not in timed tests.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from pathlib import Path

from lakerep.lake import lake_session, reset_lake
from lakerep.pipeline import land_workload, run_cycle


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


def run_bench(*, records: int, seed: int, batch_records: int) -> Iterator[str]:
    started = time.perf_counter()
    lake_session()
    reset_lake()
    startup = time.perf_counter() - started
    landed = land_workload(records=records, seed=seed, batch_records=batch_records)
    cycle = run_cycle(quiet=True)
    pipeline_seconds = landed.land_seconds + cycle.seconds
    python_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    jvm_peak = _jvm_peak_rss_mib()
    yield f"bench: {records:,} log records, seed {seed}, {landed.batches} landing batch(es)"
    yield f"  session start + reset   {startup:8.1f} s"
    yield f"  generate (Python)       {landed.generate_seconds:8.1f} s"
    yield f"  land (Delta append)     {landed.land_seconds:8.1f} s"
    yield f"  dbt build               {cycle.seconds:8.1f} s"
    for model, seconds in sorted(cycle.model_seconds.items(), key=lambda item: -item[1]):
        yield f"    {model:<24}{seconds:8.1f} s"
    yield f"  records/s (land + build) {records / pipeline_seconds:9,.0f}"
    yield f"  summary: {cycle.summary.line()}"
    yield f"  peak memory: python {python_peak:,.0f} MiB" + (
        f", Spark driver JVM {jvm_peak:,.0f} MiB" if jvm_peak is not None else ""
    )
