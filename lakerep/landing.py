"""Writes log records and source snapshots into the landing tables (SPEC §2.1, §2.5).

Each call is one landing batch: a new batch number (one above the highest landed so far in
either table) and one landing time for all its rows. Rows go through a JSON-lines file so that
Spark reads them in bulk; the columns come from the landing table itself (created by the dbt
macro lakerep_create_landing_tables), so the contract is written down only there.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

SOURCE_LOG_TABLE = "lakerep_raw.source_log"
SOURCE_SNAPSHOT_TABLE = "lakerep_raw.source_snapshot"


def land_log_records(spark, records: Iterable[dict]) -> tuple[int, int]:
    """Append log records (landing-format dicts) as one landing batch: (batch, row count)."""
    return _land(spark, SOURCE_LOG_TABLE, records)


def land_snapshot_rows(spark, rows: Iterable[dict]) -> tuple[int, int]:
    """Append unloaded source rows (each with snapshot_id and unload positions) as one batch."""
    return _land(spark, SOURCE_SNAPSHOT_TABLE, rows)


def next_landing_batch(spark) -> int:
    """One numbering for both landing tables, so a capture window of landing batches also says
    which snapshots arrived in it."""
    highest = spark.sql(
        f"select greatest((select max(landing_batch) from {SOURCE_LOG_TABLE}), "
        f"(select max(landing_batch) from {SOURCE_SNAPSHOT_TABLE}))"
    ).collect()[0][0]
    return (highest or 0) + 1


def _land(spark, table: str, rows: Iterable[dict]) -> tuple[int, int]:
    from pyspark.sql import functions as F

    target_columns = spark.table(table).schema
    landed_columns = {"landing_batch", "landed_at"}
    row_schema = type(target_columns)([f for f in target_columns.fields if f.name not in landed_columns])
    batch = next_landing_batch(spark)
    landed_at = datetime.now(UTC).replace(tzinfo=None)
    directory = Path(os.environ.get("LAKEREP_HOME", ".lakerep")) / "landing"
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", suffix=".jsonl", dir=directory, delete=False
    ) as handle:
        count = 0
        for row in rows:
            handle.write(json.dumps({name: row.get(name) for name in row_schema.names}, ensure_ascii=False))
            handle.write("\n")
            count += 1
        path = handle.name
    try:
        frame = (
            spark.read.schema(row_schema)
            .option("mode", "FAILFAST")
            .json(path)
            .withColumn("landing_batch", F.lit(batch).cast("bigint"))
            .withColumn("landed_at", F.lit(landed_at).cast("timestamp"))
        )
        frame.select(*target_columns.names).write.insertInto(table)
    finally:
        os.unlink(path)
    return batch, count
