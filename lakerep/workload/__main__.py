"""Measure the generator: python -m lakerep.workload [--records N] [--batch N] [--landing-order ORDER]."""

from __future__ import annotations

import argparse
import resource
import time

from lakerep.workload.config import WorkloadConfig
from lakerep.workload.generator import Workload


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m lakerep.workload", description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000, help="log records to generate")
    parser.add_argument("--batch", type=int, default=100_000, help="log records per landing batch")
    parser.add_argument("--landing-order", choices=("log", "commit"), default="log")
    parser.add_argument("--seed", type=int, default=7)
    options = parser.parse_args()

    workload = Workload(options.seed, config=WorkloadConfig(landing_order=options.landing_order))
    started, cpu_started = time.perf_counter(), time.process_time()
    landed = 0
    remaining = options.records
    while remaining > 0:
        size = min(options.batch, remaining)
        landed += len(workload.next_batch(size).records)
        remaining -= size
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    # ru_maxrss is in KiB on Linux.
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{options.records:,} log records ({landed:,} landed row records, "
        f"{len(workload.oracle.commit_positions()):,} commits) in {wall:.1f} s wall, {cpu:.1f} s CPU; "
        f"peak RSS {peak_mib:.0f} MiB"
    )


if __name__ == "__main__":
    main()
