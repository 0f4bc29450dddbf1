"""`lakerep demo` (make demo): its second cycle's build compares each target it can with a
consistent snapshot of the source landed at the last commit, and warns of those it cannot (a
target whose set never applied a cycle, a CCD whose history does not give the rows), never a
silent pass (SPEC §7)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from lakerep.cli import main

pytestmark = pytest.mark.spark


def test_the_demo_compares_its_targets_with_a_consistent_snapshot_and_warns_of_the_rest(spark):
    result = CliRunner().invoke(main, ["demo", "--records", "1200", "--batch-records", "400"])
    assert result.exit_code == 0, result.output
    assert re.search(r"landed the last batch: [\d,]+ records", result.output), result.output
    assert (
        "compared with a consistent snapshot of their source at their synchpoint: 2 targets equal "
        "(customers_copy, order_lines_pit), 0 differ (none); not compared, with a warning: "
        "orders_history, stock_copy"
    ) in result.output, result.output
