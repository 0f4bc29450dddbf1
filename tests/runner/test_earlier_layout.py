"""A lake that lakerep's earlier layout built (a Delta table per SPEC table per source, ADR 0011)
is never mixed with today's: every command and a plain `dbt build` refuse it with one line that
says how to start again, and write nothing."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from lakerep import dbt
from lakerep.cli import EXIT_USER_ERROR, main
from lakerep.lake import reset_lake


@pytest.fixture
def earlier_lake(spark):
    reset_lake()
    spark.sql("create schema if not exists lakerep_control")
    spark.sql("create table lakerep_control.capture_register (SOURCE_OWNER string) using delta")
    yield spark
    spark.sql("drop table lakerep_control.capture_register")
    reset_lake()


def test_the_runner_refuses_a_lake_of_the_earlier_layout_and_writes_nothing(earlier_lake):
    import lakerep.lake

    lakerep.lake._landing_tables_ready = False  # as a new process finds it
    result = CliRunner().invoke(main, ["run", "--session", "s1", "--once"])
    assert result.exit_code == EXIT_USER_ERROR, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, lines
    assert "built by an earlier lakerep layout" in lines[0]
    assert "lakerep_control.capture_register" in lines[0] and "cold start" in lines[0]
    assert not earlier_lake.catalog.tableExists("lakerep_control.capture_cycles")


def test_a_plain_dbt_build_refuses_it_too(earlier_lake):
    outcome = dbt.invoke(["build"], check=False, quiet=True)
    assert outcome.exit_code != dbt.EXIT_OK
    assert not earlier_lake.catalog.tableExists("lakerep_control.capture_cycles")
    assert not earlier_lake.catalog.tableExists("lakerep_capture.captured_log")
