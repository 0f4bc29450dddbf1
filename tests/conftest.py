"""Test-session set-up: one embedded lake (SparkSession, metastore, warehouse) for all Spark tests.

The lake lives in a temporary folder, so tests never touch the project's own .lakerep/, and
dbt's target/ and logs/ go there too. The SparkSession starts once, on the first test that asks
for it, and is shared: the embedded Derby metastore admits one process at a time.
"""

from __future__ import annotations

import os

import pytest

CRASH_SCENARIOS = "tests/scenarios/test_crash_scenarios.py::"
# Handed out before the other units, in this order: the longest. The cluster's story is a fifth of
# a CI run's work (its --durations); each crash scenario takes minutes. Handed out late, a long
# unit keeps one worker busy while the other has run out of work.
LONGEST_FIRST = ("tests/cluster/test_runner_on_a_cluster.py", CRASH_SCENARIOS)


@pytest.fixture(scope="session")
def lake_home(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("lake")
    os.environ["LAKEREP_HOME"] = str(home)
    os.environ["DBT_TARGET_PATH"] = str(home / "target")
    os.environ["DBT_LOG_PATH"] = str(home / "logs")
    return home


@pytest.fixture(scope="session")
def spark(lake_home):
    from lakerep.lake import lake_session

    return lake_session()


@pytest.fixture
def fresh_lake(spark):
    """An empty lake: every lakerep schema dropped, empty landing tables."""
    from lakerep.lake import reset_lake

    reset_lake()
    return spark


@pytest.fixture(scope="module")
def one_parse():
    """One dbt parse for every invocation of the module (lakerep.dbt.parse_once, which the
    sessions it runs then share): for a module that never changes the project's files."""
    from lakerep import dbt

    with dbt.parse_once():
        yield


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadfile`, but each crash scenario a unit of its own, and the longest units
    (LONGEST_FIRST) handed out first. A worker takes a test file at a time, as its module
    fixtures build one lake for the file; a scenario takes minutes and builds its own lake.
    Handed out last (xdist's order: most tests first), a worker could queue several while the
    other runs out of work."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FilesAndScenarios(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if nodeid.startswith(CRASH_SCENARIOS) else super()._split_scope(nodeid)

        def _assign_work_unit(self, node) -> None:
            longest = [
                scope for prefix in LONGEST_FIRST for scope in self.workqueue if scope.startswith(prefix)
            ]
            for scope in reversed(longest):
                self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return FilesAndScenarios(config, log)
