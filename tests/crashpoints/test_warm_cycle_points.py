"""A kill -9 at every durable step of a warm cycle with changes (issue 64): the steps are counted
from the run itself, each is a crash point, and after each the operator's restart leaves a lake
that the scenarios' checks find equal to the oracle.

The durable steps are the run's Delta commits, journaled by a test-only log store in the runner's
JVM (halting_store), which also kills the runner at the point. The count is checked against an
independent one: the new versions in every table's _delta_log. A kill "after" a commit leaves the
state a kill "before" the next one leaves, so the points are every "before" and the last "after".
Each point starts from a copy of one base lake (restored at its path: the metastore holds absolute
locations); the run, the restart and the check are processes of their own, as an operator's are."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from crashpoints.halting_store import halting_environment, store_classes
from crashpoints.lake_process import RUN_ARGUMENTS
from lakerep_process import LakerepProcesses

from lakerep import PROJECT_DIR

pytestmark = pytest.mark.crashpoints

LAKE_PROCESS = Path(__file__).with_name("lake_process.py")


def delta_versions(home: Path) -> set[str]:
    """Every table's commit files, by their path in `home`."""
    return {str(path.relative_to(home)) for path in (home / "warehouse").glob("*/*/_delta_log/*.json")}


def restore(base: Path, home: Path) -> None:
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(base, home, symlinks=True)


def run(processes: LakerepProcesses, arguments: list[str], extra: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, *arguments], cwd=PROJECT_DIR, env={**processes.env, **(extra or {})},
        capture_output=True, text=True, timeout=1200, start_new_session=True,
    )  # fmt: skip


def lake_process(processes: LakerepProcesses, *arguments: str) -> str:
    done = run(processes, [str(LAKE_PROCESS), *arguments])
    output = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, f"lake_process {' '.join(arguments)}:\n{output}"
    return done.stdout


def test_a_kill_at_every_durable_step_of_a_warm_cycle_loses_and_doubles_nothing(tmp_path):
    store_classes()
    home, base, journal = tmp_path / "lake", tmp_path / "base", tmp_path / "journal"
    processes = LakerepProcesses(home)
    processes.env["PYTHONPATH"] = str(Path(__file__).parents[1])
    lake_process(processes, "base")
    shutil.copytree(home, base, symlinks=True)

    counting = run(processes, ["-m", "lakerep.cli", *RUN_ARGUMENTS], halting_environment(journal))
    assert counting.returncode == 0, counting.stdout[-3000:] + counting.stderr[-3000:]
    events = journal.read_text().splitlines()
    after = [line.split() for line in events if line.split()[1] == "after"]
    committed = {str(Path(words[-1]).relative_to(home)) for words in after}
    new_versions = delta_versions(home) - delta_versions(base)
    assert committed == new_versions and len(events) == 2 * len(new_versions), (events, sorted(new_versions))

    points = [number for number, line in enumerate(events, 1) if line.split()[1] == "before"] + [len(events)]
    started = time.monotonic()
    for point in points:
        restore(base, home)
        journal.unlink()
        crashed = run(processes, ["-m", "lakerep.cli", *RUN_ARGUMENTS], halting_environment(journal, point))
        assert crashed.returncode == -signal.SIGKILL, (point, crashed.stdout[-3000:] + crashed.stderr[-3000:])
        assert journal.read_text().splitlines() == events[:point], point  # the same run, killed there
        where = events[point - 1].split(" ", 1)[1]
        print(f"point {point}: killed {where}", flush=True)
        print(lake_process(processes, "check", where), flush=True)
    print(
        f"warm cycle with changes: {len(new_versions)} durable steps (Delta commits), "
        f"{len(points)} crashes, every check passed after each, {time.monotonic() - started:.0f} s",
        flush=True,
    )
