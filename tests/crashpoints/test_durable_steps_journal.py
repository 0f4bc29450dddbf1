"""The runner's own durable steps (lakerep.durable) in the crash points' journal, on their own (no
Spark; part of `make test`): each step journaled before and after its body, and at event N the
process and its process group killed, leaving the steps before N done and nothing after."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from crashpoints.journal import AT_VARIABLE, JOURNAL_VARIABLE, OBSERVER

from lakerep.durable import OBSERVER_VARIABLE

STEPS = """
import sys
from pathlib import Path
from lakerep.durable import durable_step
for number in range(3):
    with durable_step(f"file-write {sys.argv[1]}/{number}"):
        Path(sys.argv[1], str(number)).write_text("done")
"""


def three_steps(folder: Path, at: int | None, observer: str = OBSERVER) -> subprocess.CompletedProcess:
    folder.mkdir(exist_ok=True)
    variables = {
        OBSERVER_VARIABLE: observer,
        JOURNAL_VARIABLE: str(folder / "journal"),
        "PYTHONPATH": str(Path(__file__).parents[1]),
        **({} if at is None else {AT_VARIABLE: str(at)}),
    }
    return subprocess.run(
        [sys.executable, "-c", STEPS, str(folder)], env={**os.environ, **variables},
        capture_output=True, text=True, timeout=60, start_new_session=True,
    )  # fmt: skip


def done(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name != "journal")


def test_every_step_is_journaled_before_and_after_its_body(tmp_path):
    assert three_steps(tmp_path, at=None).returncode == 0
    journal = (tmp_path / "journal").read_text().splitlines()
    assert journal == [
        f"{2 * step + moment + 1} {('before', 'after')[moment]} file-write {tmp_path}/{step}"
        for step in range(3)
        for moment in range(2)
    ]
    assert done(tmp_path) == ["0", "1", "2"]


def test_a_kill_before_a_step_leaves_it_undone_and_after_it_done(tmp_path):
    assert three_steps(tmp_path / "before", at=3).returncode == -signal.SIGKILL
    assert done(tmp_path / "before") == ["0"]
    assert three_steps(tmp_path / "after", at=4).returncode == -signal.SIGKILL
    assert done(tmp_path / "after") == ["0", "1"]
    assert len((tmp_path / "after" / "journal").read_text().splitlines()) == 4


def test_without_an_observer_a_step_is_only_its_work(tmp_path):
    assert three_steps(tmp_path, at=1, observer="").returncode == 0
    assert done(tmp_path) == ["0", "1", "2"] and not (tmp_path / "journal").exists()
