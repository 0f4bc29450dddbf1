"""A generated workload, landed in batches in both landing orders, passes staging whole: every
record staged unchanged, none quarantined, and the run summary agrees with the generator."""

from __future__ import annotations

import json

import pytest

from lakerep import dbt
from lakerep.lake import reset_lake
from lakerep.pipeline import land_workload, run_cycle
from lakerep.summary import relation_name

pytestmark = pytest.mark.usefixtures("one_parse")  # the module's invocations share one dbt parse


@pytest.fixture(scope="module", params=["log", "commit"])
def landed(request, spark):
    reset_lake()
    result = land_workload(records=3_000, seed=11, batch_records=1_000, landing_order=request.param)
    # the data tests, without the unit tests (tests/runner/test_demo.py runs every one)
    cycle = run_cycle(quiet=True, select="staging intermediate", unit_tests=False)
    staged = spark.sql(f"select * from {relation_name('int_log_records_valid')}").collect()
    return result, cycle, staged


def emitted_records(workload_result):
    """The records the generator emitted, re-generated from the same seed (the generator is
    deterministic), keyed by log position."""
    from lakerep.workload.generator import Workload, WorkloadConfig

    config = WorkloadConfig(landing_order=workload_result.workload.config.landing_order)
    again = Workload(seed=11, config=config)
    records = []
    for _ in range(workload_result.batches):
        records.extend(again.next_batch(1_000).records)
    return {record["log_position"]: record for record in records}


def test_nothing_is_quarantined_and_everything_is_staged(landed):
    result, cycle, staged = landed
    assert cycle.summary.records_quarantined == 0
    assert cycle.summary.records_landed == result.records == len(staged)


def test_staged_records_equal_the_generated_ones(landed):
    result, _, staged = landed
    expected = emitted_records(result)
    assert {row["log_position"] for row in staged} == set(expected)
    for row in staged:
        record = expected[row["log_position"]]
        assert row["uow_id"] == record["uow_id"]
        assert row["record_type"] == record["record_type"]
        assert (row["source_owner"], row["source_table"]) == (record["source_owner"], record["source_table"])
        assert row["log_timestamp"].strftime("%Y-%m-%d %H:%M:%S.%f") == record["log_timestamp"]
        for image in ("before_image", "after_image"):
            assert (row[image] and json.loads(row[image])) == (record[image] and json.loads(record[image]))


def test_summary_agrees_with_the_oracle(landed):
    result, cycle, _ = landed
    oracle = result.workload.oracle
    summary = cycle.summary
    assert summary.uows_committed == len(oracle.commit_positions())
    assert summary.uows_rolled_back == len(oracle.rolled_back_uows())
    registered = set(oracle.tables)
    emitted = emitted_records(result).values()
    assert summary.row_changes_unregistered == sum(
        1
        for record in emitted
        if record["source_table"] and f"{record['source_owner']}.{record['source_table']}" not in registered
    )
    assert len(summary.batches) == result.batches


def test_a_snapshot_lands_with_its_unload_window(spark):
    from lakerep import landing
    from lakerep.workload.generator import Workload
    from lakerep.workload.values import RowCodec

    workload = Workload(seed=5)
    start = workload.next_batch(500).log_end_position
    end = workload.next_batch(500).log_end_position
    snapshot = workload.snapshot("SALES.ORDER_LINES", start, end)
    batch, count = landing.land_snapshot_rows(spark, snapshot.to_landing_rows())

    landed = spark.sql(
        f"select * from {landing.SOURCE_SNAPSHOT_TABLE} where landing_batch = {batch}"
    ).collect()
    assert count == len(snapshot.rows) == len(landed) > 0
    assert {(row["unload_start_position"], row["unload_end_position"]) for row in landed} == {(start, end)}
    assert {row["snapshot_id"] for row in landed} == {snapshot.snapshot_id}
    codec = RowCodec(snapshot.registration.columns)
    names = snapshot.registration.column_names
    assert sorted(repr(codec.decode(row["row_image"])) for row in landed) == sorted(
        repr({name: row[name] for name in names}) for row in snapshot.rows
    )


def test_a_batch_staging_passed_over_fails_the_validation_check(spark, landed):
    """Tamper: staging loses the records of one landing batch below the highest it processed.
    The data test that guards validation fails, and its stored failure names that batch. (It
    runs last for each landing order: the lake is rebuilt for the next.)"""
    check = "assert_validation_keeps_every_landed_record"
    landed_in_batch = spark.sql(
        "select count(*) from lakerep_raw.source_log where landing_batch = 2"
    ).collect()[0][0]
    assert dbt.invoke(["test", "--select", check], check=False, quiet=True).exit_code == dbt.EXIT_OK
    spark.sql(f"delete from {relation_name('int_log_records_judged')} where landing_batch = 2")
    outcome = dbt.invoke(["test", "--select", check, "--store-failures"], check=False, quiet=True)
    assert outcome.exit_code != dbt.EXIT_OK
    [failed] = [result for result in outcome.result.results if result.node.name == check]
    failures = spark.sql(f"select * from {failed.node.relation_name}").collect()
    assert [row.asDict() for row in failures] == [
        {"landing_batch": 2, "landed_records": landed_in_batch, "checked_records": 0}
    ]
