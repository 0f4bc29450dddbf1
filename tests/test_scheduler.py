"""The test session's scheduler (tests/conftest.py, pytest_xdist_make_scheduler): under
`--dist loadfile` each crash scenario is a unit of its own, the cluster's story and the
scenarios are handed out before the other test files, and every other file stays whole on one
worker. Checked on a small project of its own, run by
pytest with two workers, without Spark."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).with_name("conftest.py")
SEEDS = (1, 2, 3)
FILES = ("test_alpha.py", "test_beta.py")

RECORDING = """
import os
from pathlib import Path

import pytest


def record(request):
    with open(Path(__file__).parents[{depth}] / "order.log", "a") as order:
        order.write(os.environ["PYTEST_XDIST_WORKER"] + " " + request.node.nodeid + "\\n")
"""


def project(root: Path) -> None:
    (root / "tests" / "scenarios").mkdir(parents=True)
    (root / "tests" / "cluster").mkdir()
    (root / "tests" / "cluster" / "test_runner_on_a_cluster.py").write_text(
        RECORDING.format(depth=2) + "\ndef test_the_story(request):\n    record(request)\n"
    )
    shutil.copy(CONFTEST, root / "tests" / "conftest.py")
    (root / "tests" / "scenarios" / "test_crash_scenarios.py").write_text(
        RECORDING.format(depth=2)
        + f"\n@pytest.mark.parametrize('seed', {list(SEEDS)})\n"
        + "def test_crash_scenario(request, seed):\n    record(request)\n"
    )
    for name in FILES:
        tests = "".join(f"\ndef test_{number}(request):\n    record(request)\n" for number in range(4))
        (root / "tests" / name).write_text(RECORDING.format(depth=1) + tests)


def test_the_longest_units_go_out_first_and_every_other_file_whole_to_one_worker(tmp_path):
    project(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile", "-p", "no:cacheprovider"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")},  # not ours
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    order = [line.split(" ", 1) for line in (tmp_path / "order.log").read_text().splitlines()]
    assert len(order) == 1 + len(SEEDS) + 4 * len(FILES)
    by_worker: dict[str, list[str]] = {}
    for worker, nodeid in order:
        by_worker.setdefault(worker, []).append(nodeid)
    assert len(by_worker) == 2, by_worker
    firsts = sorted(nodeids[0].split("::")[0] for nodeids in by_worker.values())
    assert firsts == ["tests/cluster/test_runner_on_a_cluster.py", "tests/scenarios/test_crash_scenarios.py"]
    for nodeids in by_worker.values():  # the longest units before any other file
        longest = [nodeid.startswith(("tests/cluster/", "tests/scenarios/")) for nodeid in nodeids]
        assert longest == sorted(longest, reverse=True), nodeids
    scenario_workers = {worker for worker, nodeid in order if "test_crash_scenarios.py" in nodeid}
    assert len(scenario_workers) == 2  # the scenarios are shared, not queued on one worker
    for name in FILES:
        assert len({worker for worker, nodeid in order if name in nodeid}) == 1, (name, order)
