"""Writes log records and source snapshots into the landing tables (SPEC §2.1, §2.5).

Each call is one landing batch: a new batch number (one above the highest landed so far in
either table) and one landing time for all its rows. Rows go as JSON lines, through a file that
Spark reads in bulk (embedded) or with the plan (a cluster's Spark Connect server; a large batch
in chunks, through a scratch table). Either way a batch is one commit to its table. The columns
come from the landing table itself (created by the dbt macro lakerep_create_landing_tables), so
the contract is written down only there.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

LANDING_SCHEMA = "lakerep_raw"
SOURCE_LOG_TABLE = f"{LANDING_SCHEMA}.source_log"
SOURCE_SNAPSHOT_TABLE = f"{LANDING_SCHEMA}.source_snapshot"
DEBEZIUM_EVENTS_TABLE = f"{LANDING_SCHEMA}.debezium_events"  # made by `lakerep land` on first use
LANDED_FILES_TABLE = f"{LANDING_SCHEMA}.landed_files"
SCRATCH_PREFIX = "landing_scratch_"  # a landing's chunks through Spark Connect (_read_json_lines_remotely)


def land_log_records(
    spark,
    records: Iterable[dict],
    new_only_by: tuple[str, ...] = (),
    before_write: Callable[[], None] | None = None,
) -> tuple[int, int]:
    """Append log records (landing-format dicts) as one landing batch: (batch, row count). With
    new_only_by, see _land; a record at or below the landed log's prune horizon has landed too
    (pruned_landed_through). before_write runs once every record has been read, before the
    batch commits: what describes the records (the schema history) commits first."""
    return _land(
        spark, SOURCE_LOG_TABLE, records, new_only_by=new_only_by,
        not_pruned=_not_pruned if new_only_by else None, before_write=before_write,
    )  # fmt: skip


def pruned_landed_through(spark) -> str | None:
    """The highest limit below which a prune deleted landed log records and Debezium events
    (capture_prune's LANDED rows), or None: a record of a UOW ended at or below it had landed,
    and every member had applied it, so one delivered again is not new (a source never writes
    below what it has delivered)."""
    from lakerep.summary import relation_name

    prunes = relation_name("capture_prune")
    if not spark.catalog.tableExists(prunes):
        return None
    return spark.sql(f"select max(prune_limit) from {prunes} where pruned_kind = 'LANDED'").collect()[0][0]


def land_snapshot_rows(spark, rows: Iterable[dict]) -> tuple[int, int]:
    """Append unloaded source rows (each with snapshot_id and unload positions) as one batch.
    The unload of an empty table is one row without a row_image."""
    if not spark.table(SOURCE_SNAPSHOT_TABLE).schema["row_image"].nullable:
        # A lake made before empty unloads could land: its row_image was declared not null.
        spark.sql(f"alter table {SOURCE_SNAPSHOT_TABLE} alter column row_image drop not null")
    return _land(spark, SOURCE_SNAPSHOT_TABLE, rows)


def next_landing_batch(spark) -> int:
    """One numbering for every landing table (the Debezium events' too, once `lakerep land` has
    made it), so a capture window of landing batches also says which snapshots arrived in it."""
    tables = [SOURCE_LOG_TABLE, SOURCE_SNAPSHOT_TABLE]
    if spark.catalog.tableExists(DEBEZIUM_EVENTS_TABLE):
        tables.append(DEBEZIUM_EVENTS_TABLE)
    highest = spark.sql(
        "select greatest(" + ", ".join(f"(select max(landing_batch) from {table})" for table in tables) + ")"
    ).collect()[0][0]
    return (highest or 0) + 1


def land_debezium_events(
    spark,
    events: Iterable[dict],
    batch: int | None = None,
    new_only_by: tuple[str, ...] = (),
    before_write: Callable[[], None] | None = None,
) -> tuple[int, int]:
    """Append Debezium events (event_value, landed_file, landed_line) as one landing batch, or
    into `batch` when a call lands several tables in one batch. With new_only_by, see _land; an
    event of a transaction ended at or below the landed log's prune horizon has landed too
    (pruned_landed_through). before_write: as land_log_records'."""
    return _land(
        spark, DEBEZIUM_EVENTS_TABLE, events, batch, new_only_by,
        not_pruned=_events_not_pruned if new_only_by else None, before_write=before_write,
    )  # fmt: skip


def land_file_records(spark, files: Iterable[dict], batch: int) -> tuple[int, int]:
    """Record the files a landing batch took (file_name, file_sha256, file_format, line_count)."""
    return _land(spark, LANDED_FILES_TABLE, files, batch)


def _land(
    spark,
    table: str,
    rows: Iterable[dict],
    batch: int | None = None,
    new_only_by: tuple[str, ...] = (),
    not_pruned=None,
    before_write: Callable[[], None] | None = None,
) -> tuple[int, int]:
    """(batch, rows landed). With new_only_by (columns), a row equal in those columns to one the
    table holds, or to another of the call, has landed already and is left out (a delivery at
    least once, as Kafka Connect's, repeats records): the count is of the rows landed. With
    not_pruned (spark, frame, held_through -> frame), so has a row it leaves out, once a prune
    has deleted landed rows: of a UOW that ended at or below the prune's limit
    (pruned_landed_through), whose landed copy the prune took."""
    from pyspark.sql import functions as F

    target_columns = spark.table(table).schema
    landed_columns = {"landing_batch", "landed_at"}
    row_schema = type(target_columns)([f for f in target_columns.fields if f.name not in landed_columns])
    batch = next_landing_batch(spark) if batch is None else batch
    landed_at = datetime.now(UTC).replace(tzinfo=None)
    lines = (
        json.dumps({name: row.get(name) for name in row_schema.names}, ensure_ascii=False) for row in rows
    )
    reader = _read_json_lines_remotely if is_remote(spark) else _read_json_lines_through_a_file
    before = _last_commit(spark, table) if new_only_by else None
    with reader(spark, row_schema, lines) as (frame, count):
        if before_write is not None:
            before_write()
        if new_only_by:
            frame = _not_held(spark, table, frame.dropDuplicates(list(new_only_by)), new_only_by)
        held_through = pruned_landed_through(spark) if not_pruned is not None else None
        if held_through is not None:
            frame = not_pruned(spark, frame, held_through)
        (
            frame.withColumn("landing_batch", F.lit(batch).cast("bigint"))
            .withColumn("landed_at", F.lit(landed_at).cast("timestamp"))
            .select(*target_columns.names)
            .write.insertInto(table)
        )
    if new_only_by:  # what the append wrote, from its commit: no second pass over the rows
        after = _last_commit(spark, table)
        # an append of no rows may make no commit: the last one is then an earlier call's
        count = (
            int(after["operationMetrics"].get("numOutputRows", 0))
            if after["version"] != before["version"]
            else 0
        )
    return batch, count


def _last_commit(spark, table: str):
    return spark.sql(f"describe history {table} limit 1").collect()[0]


def _not_held(spark, table: str, frame, columns: tuple[str, ...]):
    """The frame's rows that no row of the table equals in `columns` (nulls equal)."""
    from pyspark.sql.functions import col

    held = spark.table(table).select(*columns).alias("held")
    same = [col(f"new.{column}").eqNullSafe(col(f"held.{column}")) for column in columns]
    condition = same[0]
    for also in same[1:]:
        condition = condition & also
    return frame.alias("new").join(held, condition, "left_anti").select("new.*")


def _not_pruned(spark, frame, held_through: str):
    """The frame's records but those of UOWs whose end the lake judged at or below
    `held_through` (their landed copies are pruned; their judged ends stay)."""
    from pyspark.sql.functions import col

    from lakerep.summary import relation_name

    ended = spark.table(relation_name("int_log_records_judged")).where(
        col("record_type").isin("C", "R") & col("quarantine_reason").isNull()
        & (col("normalized_position") <= held_through)
    ).select("uow_id")  # fmt: skip
    same_uow = col("new.uow_id") == col("ended.uow_id")
    return frame.alias("new").join(ended.alias("ended"), same_uow, "left_anti")


def _events_not_pruned(spark, frame, held_through: str):
    """The frame's Debezium events but those of transactions whose commit the lake judged at
    or below `held_through` (their landed events are pruned; the judged commits stay). An
    event names its transaction id (a change: source.txId; BEGIN and END: the id before the
    colon) and a position at or below its commit: a change its WAL record's, BEGIN and END the
    position before their LSN, which is the commit's for an END (its uow_id). Its commit is the
    first of that id at or above that position: an id comes round again after wraparound. The
    prune deletes events by the same rule (lakerep_prune_plan); the runner lands without dbt, so
    it is written here again in PySpark."""
    from pyspark.sql.functions import coalesce, col, concat, get_json_object, hex, lit, lpad, split_part

    from lakerep.summary import relation_name

    def field(path: str):  # with or without JsonConverter's schema/payload wrapper
        value = col("event_value")
        return coalesce(get_json_object(value, f"$.payload.{path}"), get_json_object(value, f"$.{path}"))

    def position(lsn):
        return concat(lpad(hex(lsn), 16, "0"), lit("0000"))

    id_lsn = split_part(field("id"), lit(":"), lit(2)).cast("bigint")
    named = frame.withColumns({
        "event_tx": coalesce(field("source.txId"), split_part(field("id"), lit(":"), lit(1))),
        "event_position": coalesce(
            position(field("source.lsn").cast("bigint")), position(id_lsn - 1)
        ),
        "is_snapshot_read": coalesce(field("op") == lit("r"), lit(False)),
    })  # fmt: skip
    commits = spark.table(relation_name("int_log_records_judged")).where(
        (col("record_type") == "C") & col("quarantine_reason").isNull()
        & (col("normalized_position") <= held_through)
    ).select(col("auth_token").alias("tx"), col("normalized_position").alias("commit_position"))  # fmt: skip
    pruned = (
        (col("new.event_tx") == col("commit.tx"))
        & (col("new.event_position") <= col("commit.commit_position"))
        & ~col("new.is_snapshot_read")
    )
    return named.alias("new").join(commits.alias("commit"), pruned, "left_anti").select(*frame.columns)


def is_remote(spark) -> bool:
    """Whether `spark` is a Spark Connect client (the `cluster` output), not a session in this
    process."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


@contextmanager
def _read_json_lines_through_a_file(spark, row_schema, lines: Iterator[str]):
    """The embedded session reads the lines from a file under the lakerep home, in bulk (a
    DataFrame made from Python rows would cross into the JVM row by row)."""
    directory = Path(os.environ.get("LAKEREP_HOME", ".lakerep")) / "landing"
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", suffix=".jsonl", dir=directory, delete=False
    ) as handle:
        path = handle.name
        count = 0
        try:  # the lines may come from a source as it is read, and stop with its error
            for line in lines:
                handle.write(line)
                handle.write("\n")
                count += 1
        except BaseException:
            os.unlink(path)
            raise
    try:
        yield spark.read.schema(row_schema).option("mode", "FAILFAST").json(path), count
    finally:
        os.unlink(path)


REMOTE_CHUNK_BYTES = 8 << 20
"""The most JSON (UTF-8 bytes) a landing sends a Spark Connect server in one plan. The server
holds a plan's rows in its heap several times over (protobuf, Arrow, rows, task binaries): the
bench's first batch, 129,794 records and 60 MB of lines in one plan, stopped a 2 GiB server with
"Java heap space"."""


@contextmanager
def _read_json_lines_remotely(spark, row_schema, lines: Iterator[str]):
    """A cluster's server cannot read the runner's disk: the lines travel with the plan (Spark
    Connect sends them as Arrow batches) and the server parses them as the file reader would.
    More lines than one plan should carry go first, a chunk at a time, into a scratch table that
    the landing then reads, so the landing table still gets the whole batch in one commit."""
    from pyspark.sql import functions as F

    def parsed(frame):
        row = F.from_json("value", row_schema, {"mode": "FAILFAST"}).alias("row")
        return frame.select(row).select("row.*")

    chunks = _chunks(lines, REMOTE_CHUNK_BYTES)
    first = next(chunks, [])
    second = next(chunks, None)
    if second is None:
        yield parsed(spark.createDataFrame(first, "value string")), len(first)
        return
    _drop_abandoned_scratch_tables(spark)
    scratch = f"{LANDING_SCHEMA}.{SCRATCH_PREFIX}{datetime.now(UTC):%Y%m%d%H%M%S}_{uuid.uuid4().hex[:12]}"
    drop = f"drop table if exists {scratch}"
    spark.sql(f"create table {scratch} (value string) using delta")
    try:
        count = 0
        for chunk in itertools.chain([first, second], chunks):
            spark.createDataFrame(chunk, "value string").write.insertInto(scratch)
            count += len(chunk)
        yield parsed(spark.table(scratch)), count
    except BaseException:
        with contextlib.suppress(Exception):  # the server may be gone: its first error is the one to see
            spark.sql(drop)
        raise
    spark.sql(drop)


def _drop_abandoned_scratch_tables(spark) -> None:
    """A landing that died between its chunks left its scratch table (and nothing in the landing
    table). One made more than a day ago is no running landing's: runners' clocks, which name
    them, differ by less."""
    cutoff = f"{datetime.now(UTC) - timedelta(days=1):%Y%m%d%H%M%S}"
    for row in spark.sql(f"show tables in {LANDING_SCHEMA} like '{SCRATCH_PREFIX}*'").collect():
        made = row["tableName"].removeprefix(SCRATCH_PREFIX).split("_")[0]
        if len(made) == len(cutoff) and made.isdigit() and made < cutoff:
            spark.sql(f"drop table if exists {LANDING_SCHEMA}.{row['tableName']}")


def _chunks(lines: Iterator[str], most_bytes: int) -> Iterator[list[tuple[str]]]:
    """The lines as rows of one column, in lists of at most `most_bytes` of UTF-8 (at least one
    line each)."""
    chunk: list[tuple[str]] = []
    size = 0
    for line in lines:
        length = len(line.encode())
        if chunk and size + length > most_bytes:
            yield chunk
            chunk, size = [], 0
        chunk.append((line,))
        size += length
    if chunk:
        yield chunk
