"""A member with a column list (SPEC §2.4: the columns of the source a target holds) through the
demo's two cycles, in a copy of the project whose declaration adds one to the set SALES (the
project's own declaration is the demo's, left alone): its table has the listed columns only, in
the source's order, and its second cycle's build finds it equal, over those columns, to the
consistent snapshot of its source the workload's oracle gives (lakerep_matches_source_snapshot),
as `lakerep diff` does. A column the source adds later reaches a copy of all its columns, not
the listed one."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from lakerep.bench_wide import copy_environment, copy_project

pytestmark = pytest.mark.spark  # a process of its own, with its own JVM

LISTED = {
    "source": "SALES.ORDER_LINES",
    "target": "order_lines_counts",
    "structure": "user_copy",
    "columns": ["quantity", "order_id", "line_no"],
}
IN_THE_COPY = """
from click.testing import CliRunner
from lakerep.cli import main
from lakerep.lake import lake_session, reset_lake
from lakerep.pipeline import (land_consistent_snapshots, land_next_batch, land_refresh_snapshots,
                              land_workload, run_cycle)
from lakerep.sources.schema_history import Change, HistoryRow, record_history
from lakerep.summary import relation_name

def columns(target):
    return lake_session().table(relation_name(target)).columns

reset_lake()  # the demo's two cycles, keeping its workload
workload = land_workload(records=800, seed=42, batch_records=400).workload
land_refresh_snapshots(workload)
run_cycle(quiet=True, command="run")
land_next_batch(workload, 400)
land_consistent_snapshots(workload)
print(run_cycle(quiet=True, unit_tests=False).snapshot_comparison_line())
print("columns:", columns("order_lines_counts"))
print("diff exit code:", CliRunner().invoke(main, ["diff", "--member", "order_lines_counts"]).exit_code)

# ORDER_LINES gains a column (ADR 0012) past every landed record, which keep the columns they
# were written with: the copy of all its columns takes it, the listed one does not
land_next_batch(workload, 400)
spark = lake_session()
highest = spark.sql("select max(log_position) from lakerep_raw.source_log").collect()[0][0]
added = Change("add_column", "discount", None, "int", "a column added at the source")
record_history(spark, [HistoryRow("SALES", "ORDER_LINES", format(int(highest, 16) + 1, "020X"), added)])
run_cycle(quiet=True, command="run")
print("after the source added a column:", columns("order_lines_pit")[-1], columns("order_lines_counts"))
"""


def test_a_listed_target_holds_its_columns_and_equals_the_source_over_them(tmp_path):
    project = copy_project(tmp_path / "project")
    declaration = project / "subscriptions.yml"
    declared = yaml.safe_load(declaration.read_text(encoding="utf-8"))
    sales = next(s for s in declared["apply_qualifiers"][0]["sets"] if s["set_name"] == "SALES")
    sales["members"].append(LISTED)
    declaration.write_text(yaml.safe_dump(declared, sort_keys=False), encoding="utf-8")
    environment = copy_environment(project)
    for arguments in (["-m", "lakerep.cli", "scaffold"], ["-c", IN_THE_COPY]):
        done = subprocess.run([sys.executable, *arguments], cwd=project, env=environment,
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    printed = done.stdout
    assert "columns: ['order_id', 'line_no', 'quantity']" in printed, printed
    assert (
        "compared with a consistent snapshot of their source at their synchpoint: 3 targets equal "
        "(customers_copy, order_lines_counts, order_lines_pit), 0 differ (none)"
    ) in printed, printed
    assert "diff exit code: 0" in printed, printed
    listed = "['order_id', 'line_no', 'quantity']"
    assert f"after the source added a column: discount {listed}" in printed, printed
