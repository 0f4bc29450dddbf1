"""Test-session set-up: one embedded lake (SparkSession, metastore, warehouse) for all Spark tests.

The lake lives in a temporary folder, so tests never touch the project's own .lakerep/, and
dbt's target/ and logs/ go there too. The SparkSession starts once, on the first test that asks
for it, and is shared: the embedded Derby metastore admits one process at a time.
"""

from __future__ import annotations

import os

import pytest

CRASH_SCENARIOS = "tests/scenarios/test_crash_scenarios.py::"
# The longest units, handed out before the others in this order, to a worker that holds none.
# Worker-seconds in CI on 2026-11-29 (8,121 in all): the cluster's story 1,705, each crash
# scenario about 600, kill -9 and recover 521, the Thrift server 515, a live PostgreSQL 326.
# (The crash scenarios run in `make scenarios`, the cluster's story and the Thrift server in
# `make cluster`, not in `make test`: a slow day's CI did not finish in its 90 minutes with them.)
# Handed out late (xdist's order: most tests first, so a one-test file last), a long unit keeps
# one worker busy while the other has run out of work: that night the PostgreSQL test ran
# alone for the last 338 s. Handed to the same worker, two long units queue behind each other.
LONGEST_FIRST = (
    CRASH_SCENARIOS,
    "tests/crashpoints/test_durable_steps_in_every_make_test.py",
    "tests/cluster/test_runner_on_a_cluster.py",
    "tests/session/test_kill_and_recover.py",
    "tests/thrift/test_thrift_server.py",
    "tests/sources/test_postgresql_end_to_end.py",
)


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
    (LONGEST_FIRST) handed out first, one at a time to a worker. A worker takes a test file at a
    time, as its module fixtures build one lake for the file; a scenario takes minutes and
    builds its own lake. Handed out last (xdist's order: most tests first), a worker could
    queue several while the other runs out of work. (xdist gives a worker its next unit while
    its last two tests run, so a worker running a scenario holds the next unit too.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FilesAndScenarios(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if nodeid.startswith(CRASH_SCENARIOS) else super()._split_scope(nodeid)

        def _assign_work_unit(self, node) -> None:
            self.workqueue.move_to_end(self._next_scope(node), last=False)
            super()._assign_work_unit(node)

        def _next_scope(self, node) -> str:
            """The longest unit left, unless the node holds one still running; else xdist's
            next. A unit whose tests all ran (a crashed worker's, queued again) comes last."""
            to_run = [scope for scope, tests in self.workqueue.items() if not all(tests.values())]
            longest = [scope for prefix in LONGEST_FIRST for scope in to_run if scope.startswith(prefix)]
            others = [scope for scope in to_run if not scope.startswith(LONGEST_FIRST)]
            running = self.assigned_work.get(node, {})
            holds_a_long_one = any(
                scope.startswith(LONGEST_FIRST) and not all(tests.values())
                for scope, tests in running.items()
            )
            if longest and not holds_a_long_one:
                return longest[0]
            return (others or longest or list(self.workqueue))[0]

    return FilesAndScenarios(config, log)
