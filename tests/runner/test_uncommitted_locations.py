"""A table whose making a process was killed in is made again by the next process (issue 64's crash
points found it twice: a kill before the schema history's first commit, and a new lake's first
command killed before a landing table's, each left every later command failing). The killed
process left the table's location with Delta's `_delta_log` and no commit in it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.errors import AnalysisException

from lakerep import lake
from lakerep.delta_tables import remove_uncommitted_locations

pytestmark = pytest.mark.spark

TABLE = "lakerep_raw.made_on_first_use"
LANDING_TABLE = "lakerep_raw.refresh_markers"


def left_by_a_killed_creation(spark, name: str) -> Path:
    """The location of table `name` as a process killed before its first commit leaves it."""
    spark.sql(f"drop table if exists {name}")
    database, table = name.split(".")
    location = {row[0]: row[1] for row in spark.sql(f"describe database {database}").collect()}["Location"]
    folder = Path(location.removeprefix("file:")) / table
    (folder / "_delta_log" / "_staged_commits").mkdir(parents=True, exist_ok=True)
    (folder / "_delta_log" / "_staged_commits" / "00000000000000000000.uuid.json").write_text("{}")
    return folder


def test_delta_alone_refuses_the_location_and_its_removal_lets_the_table_be_made(spark):
    folder = left_by_a_killed_creation(spark, TABLE)
    with pytest.raises(AnalysisException, match="DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION"):
        spark.sql(f"create table if not exists {TABLE} (n int) using delta")

    assert remove_uncommitted_locations(spark) == [folder]
    spark.sql(f"create table {TABLE} (n int) using delta")
    spark.sql(f"insert into {TABLE} values (1)")
    assert spark.table(TABLE).collect()[0][0] == 1


def test_tables_with_commits_and_other_folders_stay(spark):
    spark.sql(f"create table if not exists {TABLE} (n int) using delta")
    spark.sql(f"insert into {TABLE} values (7)")
    rows_before = sorted(spark.table(TABLE).collect())
    other = left_by_a_killed_creation(spark, "lakerep_raw.not_a_table").with_name("not_a_delta_folder")
    other.mkdir(exist_ok=True)

    assert [path.name for path in remove_uncommitted_locations(spark)] == ["not_a_table"]
    assert sorted(spark.table(TABLE).collect()) == rows_before
    assert other.is_dir()
    other.rmdir()
    spark.sql(f"drop table {TABLE}")


def test_a_processs_first_lake_session_makes_a_landing_table_again(spark, monkeypatch):
    left_by_a_killed_creation(spark, LANDING_TABLE)
    monkeypatch.setattr(lake, "_landing_tables_ready", False)  # as in a new process

    lake.lake_session()

    assert spark.catalog.tableExists(LANDING_TABLE)
    assert spark.table(LANDING_TABLE).count() == 0
