"""The test session's scheduler (tests/conftest.py, pytest_xdist_make_scheduler): under
`--dist loadfile` each crash scenario is a unit of its own, the scenarios and then the
cluster's story are handed out before the other files, one long unit at a time to a worker,
and every file stays whole on one worker. Checked on a small project of its own, shaped as CI's
run is (two scenarios, a cluster file of six tests, other files of more), run by pytest with two
workers, without Spark."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).with_name("conftest.py")
SEEDS = (2, 10)
CLUSTER = "tests/cluster/test_runner_on_a_cluster.py"
FILES = ("tests/test_alpha.py", "tests/test_beta.py", "tests/test_gamma.py", "tests/test_delta.py")

RECORDING = """
import os
from pathlib import Path

import pytest


def record(request):
    with open(Path(__file__).parents[{depth}] / "order.log", "a") as order:
        order.write(os.environ["PYTEST_XDIST_WORKER"] + " " + request.node.nodeid + "\\n")
"""


def write_tests(root: Path, path: str, count: int) -> None:
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    tests = "".join(f"\ndef test_{number}(request):\n    record(request)\n" for number in range(count))
    file.write_text(RECORDING.format(depth=len(Path(path).parts) - 1) + tests)


def project(root: Path) -> None:
    (root / "pytest.ini").write_text("[pytest]\n")  # the rootdir: no configuration of an ancestor
    (root / "tests").mkdir()
    shutil.copy(CONFTEST, root / "tests" / "conftest.py")
    write_tests(root, CLUSTER, 6)
    for path in FILES:
        write_tests(root, path, 8)  # more tests than the cluster's: xdist alone hands them out first
    scenarios = root / "tests" / "scenarios" / "test_crash_scenarios.py"
    scenarios.parent.mkdir()
    scenarios.write_text(
        RECORDING.format(depth=2)
        + f"\n@pytest.mark.parametrize('seed', {list(SEEDS)})\n"
        + "def test_crash_scenario(request, seed):\n    record(request)\n"
    )


def test_the_longest_units_go_out_first_one_to_a_worker_and_every_file_whole_to_one(tmp_path):
    project(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile", "-p", "no:cacheprovider"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")},  # not ours
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    order = [line.split(" ", 1) for line in (tmp_path / "order.log").read_text().splitlines()]
    assert len(order) == len(SEEDS) + 6 + 8 * len(FILES)
    files = {worker: [] for worker, _ in order}  # each worker's files and scenarios, in order
    for worker, nodeid in order:
        unit = nodeid if "test_crash_scenarios" in nodeid else nodeid.split("::")[0]
        if unit not in files[worker]:
            files[worker].append(unit)
    assert len(files) == 2, order
    assert sorted("test_crash_scenarios" in units[0] for units in files.values()) == [True, True], files
    for path in (CLUSTER, *FILES):
        assert sum(path in units for units in files.values()) == 1, (path, files)  # whole on one worker
    [cluster_worker] = [units for units in files.values() if CLUSTER in units]
    assert cluster_worker.index(CLUSTER) <= 2, files  # after its scenario and the file it took beside it
