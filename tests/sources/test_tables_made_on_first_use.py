"""A table the runner makes on first use (the slot's record, the schema history) is made again
after a process killed while making it (issue 64's crash points found it: a kill before the schema
history's first commit left every later run failing). The killed process left the table's
location with Delta's `_delta_log` and no commit in it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.errors import AnalysisException

from lakerep.delta_tables import create_if_missing

pytestmark = pytest.mark.spark

TABLE = "lakerep_raw.made_on_first_use"


def left_by_a_killed_creation(spark) -> Path:
    """The location as a process killed before the table's first commit leaves it."""
    spark.sql(f"drop table if exists {TABLE}")
    database = {row[0]: row[1] for row in spark.sql("describe database lakerep_raw").collect()}
    location = Path(database["Location"].removeprefix("file:")) / TABLE.split(".")[1]
    (location / "_delta_log" / "_staged_commits").mkdir(parents=True, exist_ok=True)
    return location


def test_a_table_whose_creation_was_killed_is_made_again(spark):
    left_by_a_killed_creation(spark)
    with pytest.raises(AnalysisException, match="DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION"):
        spark.sql(f"create table if not exists {TABLE} (n int) using delta")  # Delta alone refuses

    create_if_missing(spark, TABLE, "(n int) using delta")
    spark.sql(f"insert into {TABLE} values (1)")
    assert spark.table(TABLE).collect()[0][0] == 1


def test_a_table_that_exists_keeps_its_rows(spark):
    left_by_a_killed_creation(spark)
    create_if_missing(spark, TABLE, "(n int) using delta")
    spark.sql(f"insert into {TABLE} values (7)")
    create_if_missing(spark, TABLE, "(n int) using delta")
    assert [row[0] for row in spark.table(TABLE).collect()] == [7]
    spark.sql(f"drop table {TABLE}")
