"""A scenario's journal, without Spark: saved in the lake before the checks, it is enough for
`lakerep scenarios --recheck` to draw the same workload again and check the lake a second time."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lakerep.cli import EXIT_USER_ERROR, main
from lakerep.scenarios.driver import JOURNAL_FILE, REFRESHABLE_SOURCES, Journal
from lakerep.workload.config import WorkloadConfig
from lakerep.workload.generator import Workload

BATCHES = [(300, False), (120, True), (45, False)]


def drawn(seed: int, landing_order: str, batches) -> Workload:
    workload = Workload(seed=seed, config=WorkloadConfig(landing_order=landing_order))
    for records, finish in batches:
        workload.next_batch(records, finish=finish)
    return workload


def test_a_saved_journal_loads_back_equal(tmp_path):
    journal = Journal(crashes=["warm step, warm run: 57"], cold_starts=1, prunes=1, runs=5)
    journal.crashed_work.append("warm run")
    journal.lost_crashes.append("cold step, cold run: statement 142, after its 128")
    journal.complete_work.extend([("warm run", 206), ("cold run", 128), ("retention prune", 57)])
    journal.events.append("cold run done")
    journal.batches.extend(BATCHES)
    journal.refreshes_asked.append(("stock_copy", "EXTERNAL_REFRESH", 3))
    journal.snapshots.append(("INVENTORY.STOCK", "0000000000000001A2B0", "0000000000000001A2F8"))
    journal.cold_positions.extend(["0000000000000001A2B0", "0000000000000001A2F8"])  # 2 cold runs
    journal.save(7, "commit", tmp_path / "journal.json")
    assert Journal.load(tmp_path / "journal.json") == (7, "commit", journal)


def test_an_older_journal_names_its_snapshots_from_events_and_leaves_cold_positions_unknown(tmp_path):
    path = tmp_path / "journal.json"
    Journal(events=["snapshots 0000000000000001A2B0..0000000000000001A2F8", "warm run done"]).save(
        7, "log", path
    )
    saved = json.loads(path.read_text())
    del saved["snapshots"], saved["cold_positions"]
    saved["cold_runs"] = 2  # counted, without their positions
    path.write_text(json.dumps(saved))
    window = ("0000000000000001A2B0", "0000000000000001A2F8")
    assert Journal.load(path)[2].snapshots == [(source, *window) for source in REFRESHABLE_SOURCES]
    assert Journal.load(path)[2].cold_positions == [
        None,
        None,
    ]  # unknown: checks fall back to CD_OLD_SYNCHPOINT
    assert REFRESHABLE_SOURCES == ["SALES.CUSTOMERS", "SALES.ORDERS", "SALES.ORDER_LINES"]


def test_the_seed_and_the_batches_draw_the_same_workload_again():
    first, again = drawn(7, "log", BATCHES), drawn(7, "log", BATCHES)
    assert again.oracle.commit_positions() == first.oracle.commit_positions()
    assert again.oracle.open_uows() == first.oracle.open_uows()
    assert again.oracle.history("SALES.ORDERS") == first.oracle.history("SALES.ORDERS")
    assert drawn(8, "log", BATCHES).oracle.commit_positions() != first.oracle.commit_positions()


@pytest.fixture
def scenario_env(tmp_path, monkeypatch):
    """`lakerep scenarios` points these at its lake; the test puts them back."""
    for name in ("LAKEREP_HOME", "DBT_TARGET_PATH", "DBT_LOG_PATH"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    return tmp_path


def test_recheck_needs_the_lake_and_no_seed(scenario_env):
    for args in (["--recheck"], ["--recheck", "--home", str(scenario_env), "--seed", "3"]):
        result = CliRunner().invoke(main, ["scenarios", *args])
        assert result.exit_code == EXIT_USER_ERROR, result.output
        assert "--recheck takes --home" in result.output


def test_recheck_of_a_lake_without_a_journal_says_so_before_starting_spark(scenario_env):
    result = CliRunner().invoke(main, ["scenarios", "--recheck", "--home", str(scenario_env)])
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.strip().splitlines()[-1] == (
        f"lakerep: {scenario_env / JOURNAL_FILE} does not exist: no scenario has run in this lake"
    )
