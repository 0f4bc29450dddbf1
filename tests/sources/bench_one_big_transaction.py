"""`make bench-transaction ROWS=...`: one transaction of ROWS rows, committed on a throw-away
PostgreSQL server, landed from its slot by the runner as a cycle lands it (issue 62, item 9), with
the runner's and the Spark driver's peak memory. The records stream from a server-side cursor into
the landing batch; nothing holds the transaction whole. Figures are printed, never asserted.

Measured in the same run: the floor, the same rows read by one `COPY ... TO STDOUT` of the table
(what any reader of them pays); the slot's records read and decoded without landing them (the
runner's share); and the driver's memory before the landing.

The runner's Python allocations are traced in a pass of their own, a landing from a peek into a
lake reset afterwards: tracemalloc slows allocating Python code twofold or more, so the timed
landing runs without it (its memory is the process's peak).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["LAKEREP_HOME"] = tempfile.mkdtemp(prefix="lakerep-bench-transaction-")

import psycopg
from sources.postgresql_server import postgresql_server

from lakerep.bench import jvm_peak_rss_mib
from lakerep.lake import lake_session, reset_lake
from lakerep.landing import land_log_records
from lakerep.sources.landing import land_new_changes
from lakerep.sources.postgresql import PostgresqlSource

PAYLOAD = 200  # characters of text a row carries beside its key


def main(rows: int) -> None:
    with postgresql_server(settings={"max_wal_size": "4GB"}) as dsn:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(
                "create schema shop; create table shop.big (id bigint primary key, payload text)"
            )
        source = PostgresqlSource(dsn, ["shop.big"])
        source.prepare()
        start = time.monotonic()
        with psycopg.connect(dsn, autocommit=True) as connection:
            before = connection.execute("select pg_current_wal_lsn()").fetchone()[0]
            connection.execute(
                f"insert into shop.big select g, repeat('x', {PAYLOAD}) from generate_series(1, {rows}) g"
            )
            wal = connection.execute("select pg_current_wal_lsn() - %s::pg_lsn", [before]).fetchone()[0]
        print(f"  committed {rows:,} rows in one transaction in {time.monotonic() - start:.1f} s, "
              f"{wal / 2**20:,.0f} MiB of WAL")  # fmt: skip

        start = time.monotonic()
        with psycopg.connect(dsn) as connection, connection.cursor() as cursor:
            copied = 0
            with cursor.copy("copy shop.big to stdout") as copy:
                for _ in copy:
                    copied += 1
        floor = time.monotonic() - start

        start = time.monotonic()
        with source.stream() as stream:  # a peek: the slot does not move
            decoded = sum(1 for _ in stream.records)
        read = time.monotonic() - start

        spark = lake_session()
        reset_lake()
        driver_before = jvm_peak_rss_mib()
        runner_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        tracemalloc.start()
        with source.stream() as stream:  # a peek again: the timed landing below reads the same
            land_log_records(spark, stream.records)
        python_peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        reset_lake()
        start = time.monotonic()
        landed = land_new_changes(spark, source)
        seconds = time.monotonic() - start
        counted = spark.sql("select count(*) from lakerep_raw.source_log").first()[0]
        assert landed == counted == rows + 1, (landed, counted)  # every row and its commit
        runner_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        driver_after = jvm_peak_rss_mib()
    print(f"  peak memory: runner python allocations {python_peak:,.1f} MiB during a landing; "
          f"runner process {runner_before:,.0f} MiB before, {runner_after:,.0f} MiB after; "
          f"Spark driver JVM {driver_before:,.0f} MiB before, {driver_after:,.0f} MiB after")  # fmt: skip
    print(f"bench transaction-floor: {floor:.1f} s, {copied / floor:,.0f} records/s (COPY of the rows)")
    print(f"bench transaction-read: {read:.1f} s, {decoded / read:,.0f} records/s (the slot read and "
          f"decoded, not landed)")  # fmt: skip
    print(f"bench transaction: {seconds:.1f} s, {landed / seconds:,.0f} records/s, "
          f"{seconds / floor:.1f}x the floor, {seconds / read:.1f}x the read")  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    main(parser.parse_args().rows)
