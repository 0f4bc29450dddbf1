"""Lands a generated workload into the lake of the profile's active output, as an outside loader
would: run as its own process with the cluster's variables (the test process keeps an embedded
SparkSession, and pyspark admits one kind of session per process).

    python load_workload.py SEED BATCH_RECORDS FROM TO [KIND...]

KIND: refresh-snapshots, consistent-snapshots or external-refresh. It
regenerates the workload of SEED (deterministic) batch by batch, lands batches FROM..TO-1, then
the snapshots named, taken after batch TO-1. `external-refresh` is another tool refreshing
stock_copy (DISABLE_REFRESH): it unloads INVENTORY.STOCK over the last two commits into the
target and prints the window, for `lakerep mark-external-refresh`. Prints the highest landing
batch of the lake."""

from __future__ import annotations

import sys

from lakerep import landing
from lakerep.lake import lake_session
from lakerep.landing import land_log_records, next_landing_batch
from lakerep.pipeline import land_consistent_snapshots, land_refresh_snapshots
from lakerep.summary import relation_name
from lakerep.workload.generator import Workload


def main(seed: int, batch_records: int, first: int, end: int, *snapshots: str) -> None:
    workload = Workload(seed=seed)
    spark = lake_session()
    # Both ways of landing on a cluster: the log batches and the later snapshots go to the server
    # in chunks, through a scratch table; the first snapshots (under 41 KB each) in one plan.
    landing.REMOTE_CHUNK_BYTES = 128 * 1024
    for number in range(end):
        batch = workload.next_batch(batch_records)
        if number >= first:
            land_log_records(spark, batch.records)
    for kind in snapshots:
        print(f"{kind}: {KINDS[kind](workload)} rows")
    print(f"highest landing batch: {next_landing_batch(spark) - 1}")


def refresh_stock_copy(workload: Workload) -> int:
    """Another tool's refresh of stock_copy: the unload of its source over the last two commits
    replaces the target's rows."""
    start, end = workload.oracle.commit_positions()[-2:]
    rows = workload.snapshot("INVENTORY.STOCK", start, end).rows
    spark = lake_session()
    target = relation_name("stock_copy")
    frame = spark.createDataFrame(list(rows), schema=spark.table(target).schema)
    frame.write.mode("overwrite").saveAsTable(target)
    print(f"window {start} {end}")
    return len(rows)


KINDS = {
    "refresh-snapshots": land_refresh_snapshots,
    "consistent-snapshots": land_consistent_snapshots,
    "external-refresh": refresh_stock_copy,
}

if __name__ == "__main__":
    main(*(int(value) for value in sys.argv[1:5]), *sys.argv[5:])
