"""How a landing through Spark Connect cuts its JSON lines into plans (lakerep.landing._chunks):
every line once, in order, no chunk over the limit unless one line alone is; and a batch landed in
chunks, through a scratch table, on the embedded session (the Spark Connect way taken in process)."""

from datetime import UTC, datetime

import pytest

from lakerep import landing
from lakerep.landing import LANDING_SCHEMA, SCRATCH_PREFIX, SOURCE_LOG_TABLE, _chunks
from lakerep.workload.generator import Workload


def test_chunks_keep_every_line_in_order_within_the_limit():
    lines = [f"line {number:04d}" for number in range(1000)]  # 9 characters each
    chunks = list(_chunks(iter(lines), 100))
    assert [value for chunk in chunks for (value,) in chunk] == lines
    assert all(sum(len(value) for (value,) in chunk) <= 100 for chunk in chunks)
    assert [len(chunk) for chunk in chunks[:-1]] == [11] * (len(chunks) - 1)


def test_a_line_longer_than_the_limit_travels_alone():
    chunks = list(_chunks(iter(["a" * 5, "b" * 50, "c" * 5]), 10))
    assert chunks == [[("a" * 5,)], [("b" * 50,)], [("c" * 5,)]]


def test_no_lines_make_no_chunk():
    assert list(_chunks(iter([]), 10)) == []


def test_the_limit_counts_utf8_bytes_not_characters():
    chunks = list(_chunks(iter(["é" * 5, "é" * 5]), 12))  # 10 bytes each
    assert chunks == [[("é" * 5,)], [("é" * 5,)]]


def scratch_tables(spark) -> set[str]:
    return {
        row["tableName"]
        for row in spark.sql(f"show tables in {LANDING_SCHEMA} like '{SCRATCH_PREFIX}*'").collect()
    }


def log_versions(spark) -> int:
    return spark.sql(f"describe history {SOURCE_LOG_TABLE}").count()


def test_a_batch_in_chunks_lands_whole_in_one_commit_and_sweeps_abandoned_scratch(fresh_lake, monkeypatch):
    spark = fresh_lake
    abandoned = f"{SCRATCH_PREFIX}20200101000000_abandoned"  # a landing that died years ago
    running = f"{SCRATCH_PREFIX}{datetime.now(UTC):%Y%m%d%H%M%S}_running"  # another one, under way
    for name in (abandoned, running):
        spark.sql(f"create table {LANDING_SCHEMA}.{name} (value string) using delta")
    monkeypatch.setattr(landing, "is_remote", lambda _: True)  # the Spark Connect way, in process
    monkeypatch.setattr(landing, "REMOTE_CHUNK_BYTES", 4096)
    records = Workload(seed=5).next_batch(40).records
    versions = log_versions(spark)

    batch, count = landing.land_log_records(spark, records)

    assert count == len(records) > 20  # some ten chunks
    assert log_versions(spark) == versions + 1
    landed = spark.table(SOURCE_LOG_TABLE).where(f"landing_batch = {batch}").collect()
    assert sorted(row["log_position"] for row in landed) == sorted(r["log_position"] for r in records)
    assert scratch_tables(spark) == {running}


def test_a_malformed_line_in_chunks_fails_the_landing_and_leaves_nothing(fresh_lake, monkeypatch):
    spark = fresh_lake
    monkeypatch.setattr(landing, "REMOTE_CHUNK_BYTES", 64)
    lines = iter(['{"number": 1, "name": "one"}'] * 5 + ['{"number": "not a number"}'])
    with (
        pytest.raises(Exception, match=r"(?i)malformed|FAILFAST"),
        landing._read_json_lines_remotely(spark, "number int, name string", lines) as (frame, _),
    ):
        frame.collect()
    assert scratch_tables(spark) == set()
