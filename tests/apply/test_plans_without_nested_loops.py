"""No plan that a cycle, its data tests or `lakerep diff` runs pairs every row of one side with
every row of the other (issue 61): a BroadcastNestedLoopJoin or a CartesianProduct only where one
side is one row. At a test's size such a plan costs nothing; at 200,000 rows a diff ran for more
than 15 minutes in one. Every query Spark ran is read back from its status store (tests/plans.py),
Delta's own inside the MERGEs included."""

from __future__ import annotations

import pytest
from apply.apply_support import (
    MEMBERS,
    a_lake_with_every_target_copied,
    land_snapshot,
    run_cycle,
    synchpoints,
)
from plans import executions_since, last_execution_id, nested_loop_joins, recorded_executions

from lakerep import apply_commands, dbt, landing

pytestmark = pytest.mark.usefixtures("one_parse")

COMPARABLE = ("customers_copy", "order_lines_pit")  # the CCD target's history cannot be compared


def test_the_plan_reader_finds_a_nested_loop_join_and_passes_a_one_row_side(fresh_lake):
    spark = fresh_lake
    spark.sql("create or replace temporary view numbers as select id from range(100)")
    before = last_execution_id(spark)
    spark.sql("select count(*) from numbers a join numbers b on a.id < b.id").collect()
    spark.sql("select count(*) from numbers cross join (select max(id) as top from numbers) m "
              "where id < top").collect()  # fmt: skip
    quadratic, one_row_side = (nested_loop_joins(e.plan) for e in executions_since(spark, before))
    assert len(quadratic) == 1 and "BroadcastNestedLoopJoin" in quadratic[0]
    assert one_row_side == []


def test_no_cycle_data_test_or_diff_plan_is_a_nested_loop_over_two_tables(fresh_lake):
    spark = fresh_lake
    with recorded_executions(spark) as executions:
        workload = a_lake_with_every_target_copied(spark, records=1200, seed=61)  # a refresh cycle
        landing.land_log_records(spark, workload.next_batch(600).records)
        run_cycle()  # a cycle that mirrors
        position = synchpoints(spark)["customers_copy"]
        for target in COMPARABLE:
            land_snapshot(spark, workload, MEMBERS[target], position, position)
        tests = dbt.invoke(["test", "--exclude-resource-type", "unit_test"], check=False, quiet=True)
        report = apply_commands.diff(list(COMPARABLE))
    found = {
        f"{execution.node or execution.description[:100]}: {join}"
        for execution in executions
        for join in nested_loop_joins(execution.plan)
    }
    assert not found, "\n".join(sorted(found))
    # The plans read are those of work done: the data tests compared, the diff found nothing.
    assert tests.exit_code == dbt.EXIT_OK, tests.detail
    assert set(report.counts) == set(COMPARABLE) and not report.differs, report.lines
    assert len(executions) > 100
