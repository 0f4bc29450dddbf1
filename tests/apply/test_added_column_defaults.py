"""A column the source adds with a default (ADR 0012) reaches a target's rows from before it with
that default: the runner marks the table (the property lakerep_pending_defaults), adds the
column, then fills it in every row. A run killed between the last two leaves the mark and the
column; the next run must fill it. The crash points found it did not: the mark was looked for in
what `show table extended` says of the table, which for a Delta table holds no property."""

from __future__ import annotations

import pytest

from lakerep.pipeline import land_next_batch, land_refresh_snapshots, land_workload, run_cycle
from lakerep.sources.schema_history import Change, HistoryRow, record_history
from lakerep.summary import relation_name

pytestmark = pytest.mark.spark

REGION = Change("add_column", "region", None, "string", "a column added at the source", "EU")


def test_a_fill_of_an_added_columns_default_cut_off_is_done_by_the_next_run(fresh_lake):
    spark = fresh_lake
    workload = land_workload(records=600, seed=7, batch_records=300).workload
    land_refresh_snapshots(workload)
    run_cycle(quiet=True, command="run")
    land_next_batch(workload, 600)
    # added past every landed record: the rows landed hold the columns they were written with
    highest = spark.sql("select max(log_position) from lakerep_raw.source_log").collect()[0][0]
    record_history(spark, [HistoryRow("SALES", "CUSTOMERS", format(int(highest, 16) + 1, "020X"), REGION)])
    target = relation_name("customers_copy")
    # where a run killed after adding the column, before filling it, left the table
    spark.sql(f"alter table {target} set tblproperties ('lakerep_pending_defaults' = 'region')")
    spark.sql(f"alter table {target} add columns (region string)")

    run_cycle(quiet=True, command="run")
    assert "MERGE" in {row.operation for row in spark.sql(f"describe history {target} limit 1").collect()}
    regions = spark.sql(f"select region, count(*) from {target} group by region").collect()
    assert dict(regions) == {"EU": spark.table(target).count()}
    properties = spark.sql(f"show tblproperties {target}").collect()
    assert "lakerep_pending_defaults" not in {row.key for row in properties}
