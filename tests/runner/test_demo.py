"""`lakerep demo` (make demo): its second cycle's build compares each target it can with a
consistent snapshot of the source landed at the last commit, and warns of those it cannot (a
target whose set never applied a cycle, a CCD whose history does not give the rows), never a
silent pass (SPEC §7). On the demo's lake, `lakerep status` shows each source and set (its
expectations come from the raw landed log and the declaration, not from the models), and
`dbt source freshness` warns and errors by the age of the newest landing batch."""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from lakerep import dbt
from lakerep.cli import EXIT_SET_NEEDS_ATTENTION, main
from lakerep.registrations import load_registrations
from lakerep.summary import relation_name

pytestmark = pytest.mark.spark

SOURCE_LOG = "lakerep_raw.source_log"


@pytest.fixture(scope="module")
def demo(spark):
    return CliRunner().invoke(main, ["demo", "--records", "1200", "--batch-records", "400"])


def test_the_demos_first_build_runs_every_unit_test_and_they_pass(demo):
    declared = sum(
        len(yaml.safe_load(path.read_text()).get("unit_tests") or [])
        for path in (Path(__file__).resolve().parents[2] / "models").rglob("*.yml")
    )
    assert declared >= 34  # restart decisions, CD and CCD, Apply's plan and changes, staging, control
    assert f"unit tests of the models' decisions: {declared} passed" in demo.output, demo.output


def test_the_demo_compares_its_targets_with_a_consistent_snapshot_and_warns_of_the_rest(demo):
    result = demo
    assert result.exit_code == 0, result.output
    assert re.search(r"landed the last batch: [\d,]+ records", result.output), result.output
    assert (
        "compared with a consistent snapshot of their source at their synchpoint: 2 targets equal "
        "(customers_copy, order_lines_pit), 0 differ (none); not compared, with a warning: "
        "orders_history, stock_copy"
    ) in result.output, result.output


def test_status_shows_every_source_and_set_and_exits_7_for_the_set_in_a_gap(spark, demo):
    refresh = CliRunner().invoke(main, ["refresh", "--member", "customers_copy"])
    assert refresh.exit_code == 0, refresh.output
    result = CliRunner().invoke(main, ["status", "--json"])
    assert result.exit_code == EXIT_SET_NEEDS_ATTENTION, result.output
    printed = json.loads(result.stdout)
    # STOCK's only source has DISABLE_REFRESH and the demo lands it no snapshot it may use: a gap
    sets = {(entry["apply_qual"], entry["set_name"]): entry for entry in printed["sets"]}
    assert {key: entry["status"] for key, entry in sets.items()} == {
        ("APPLY1", "SALES"): "APPLIED",
        ("APPLY1", "STOCK"): "GAP",
    }
    assert [line.split(":")[0] for line in printed["attention"]] == ["set APPLY1.STOCK is GAP"]
    assert sets[("APPLY1", "SALES")]["pending_members"] == ["customers_copy (refresh)"]
    assert sets[("APPLY1", "SALES")]["pending_refreshes"] == 1
    assert sets[("APPLY1", "STOCK")]["pending_members"] == []

    raw = spark.sql(
        f"select log_position, record_type, log_timestamp, landing_batch from {SOURCE_LOG}"
    ).collect()
    last_commit = max(row.log_position for row in raw if row.record_type == "C")
    sources = {(entry["source_owner"], entry["source_table"]): entry for entry in printed["sources"]}
    registered = {(r.source_owner, r.source_table) for r in load_registrations().values()}
    assert set(sources) == registered
    for entry in sources.values():
        assert entry["restart2"] == last_commit  # the log ends with every UOW it holds committed
        assert entry["restart_rule"] and entry["start_type"] == "warm"
        assert entry["cd_new_synchpoint"] is not None and entry["cd_old_synchpoint"] is not None

    # The lag after the last cycle: every transaction committed up to the newest record the cycle
    # read is applied, whether or not a transaction was still open there.
    cycle = spark.sql(
        f"select after_batch, up_to_batch, applied_through_time, completed_at, lag_seconds "
        f"from {relation_name('capture_cycles')} where record_kind = 'cycle' "
        "order by cycle_number desc limit 1"
    ).collect()[0]
    read = [row for row in raw if cycle.after_batch < row.landing_batch <= cycle.up_to_batch]
    newest = max(datetime.fromisoformat(row.log_timestamp) for row in read)
    if newest.tzinfo is not None:
        newest = newest.astimezone(UTC).replace(tzinfo=None)  # Spark's session time is UTC
    assert cycle.applied_through_time == newest
    assert cycle.lag_seconds == pytest.approx((cycle.completed_at - newest).total_seconds(), abs=0.01)

    text = CliRunner().invoke(main, ["status"])
    assert "lakerep: set APPLY1.SALES: APPLIED in Apply cycle" in text.stdout
    assert "pending refreshes customers_copy (refresh)" in text.stdout


@contextmanager
def landed_earlier(spark, minutes: int):
    """The source log's batches as if they had landed `minutes` earlier, then as they were."""
    version = spark.sql(f"describe history {SOURCE_LOG} limit 1").collect()[0].version
    try:
        spark.sql(f"update {SOURCE_LOG} set landed_at = landed_at - interval {minutes} minutes")
        yield
    finally:
        spark.sql(f"restore table {SOURCE_LOG} to version as of {version}")


def freshness(spark) -> tuple[int, list[str]]:
    outcome = dbt.invoke(
        ["source", "freshness", "--select", "source:lakerep_raw.source_log"], check=False, quiet=True
    )
    sources = [result for result in outcome.result.results if result.node.resource_type == "source"]
    return outcome.exit_code, [str(result.status) for result in sources]


def test_source_freshness_warns_then_errors_as_the_newest_landing_ages(spark, demo):
    assert freshness(spark) == (0, ["pass"])
    with landed_earlier(spark, 30):  # landing_warn_after_minutes 15
        assert freshness(spark) == (0, ["warn"])
    with landed_earlier(spark, 90):  # landing_error_after_minutes 60
        assert freshness(spark)[1] == ["error"]
    assert freshness(spark) == (0, ["pass"])
