"""A run kind's crash points on one lake: the base lake its run starts from, the counting run that
journals its durable steps (checked against an independent count), and a kill at each point, each
followed by the operator's restart and the scenarios' checks (lake_process.py).

The durable steps are the run's Delta commits, journaled by a test-only log store in the runner's
JVM (halting_store), and the runner's own files and slot confirmations, journaled by an observer of
lakerep.durable (crashpoints.journal), in one numbered journal; either kills the runner at the
point. The independent count: the new versions in every table's _delta_log, and the files of the
lakerep home the run changed. A kill "after" a step leaves the state a kill "before" the next one
leaves, so the points are every "before" and the last "after". Each point starts from a copy of
the base lake (restored at its path: the metastore holds absolute locations). A kill's restart and
the checks are a new process, as an operator's is, which then runs the next point's run
(next_run.py): a point costs one JVM start."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from crashpoints import next_run
from crashpoints.halting_store import halting_capable_environment, halting_environment, store_classes
from crashpoints.lake_process import CHECKS_PASSED
from crashpoints.run_kinds import KINDS
from lakerep_process import LakerepProcesses

from lakerep import PROJECT_DIR

# What the runner's own file steps leave aside: the tables (counted by their commits), the
# metastore and its log, and dbt's compiled project and logs, which no restart reads as state.
NOT_RUNNER_FILES = {"warehouse"} | next_run.KEPT_OPEN


@dataclass(frozen=True)
class Checked:
    """A crash point's restart and checks: where the run was killed, whether every check passed,
    and what they printed."""

    killed_at: str
    passed: bool
    output: str

    @classmethod
    def of(cls, killed_at: str, done: subprocess.CompletedProcess) -> Checked:
        checks, passed, _ = done.stdout.partition(CHECKS_PASSED + "\n")
        return cls(killed_at, bool(passed), checks if passed else output(done))


class Enumeration:
    """The crash points of a run of `kind` (run_kinds.KINDS: its `lakerep` command, its base, its
    restart and checks) on a lake in `folder`, with the project (its models and runner) in
    `project`: the real one, or a deliberately broken copy. A kind's settings (the PostgreSQL
    kind's server) come from the environment, the processes' too."""

    def __init__(self, folder: Path, kind: str, project: Path = PROJECT_DIR) -> None:
        store_classes()
        self.kind = kind
        self.home, self.base, self.journal = folder / "lake", folder / "base", folder / "journal"
        self.project = project
        self.processes = LakerepProcesses(self.home)
        self.processes.env["PYTHONPATH"] = f"{project}:{project / 'tests'}"

    def make_base(self) -> None:
        made = self.lake_process("base", self.kind)
        assert made.returncode == 0, output(made)
        shutil.copytree(self.home, self.base, symlinks=True)

    def count(self) -> list[str]:
        """The run's journal of durable steps, from a run to its end, checked against what the run
        left in the lake (the base before it): each new Delta version journaled, and each changed
        runner file (a file written and removed again in the run, a lock, leaves no change)."""
        self.restore()
        counting = self.run(halting_environment(self.journal))
        assert counting.returncode == 0, output(counting)
        events = self.journal.read_text().splitlines()
        steps = [line.split(" ", 3)[1:] for line in events]
        assert [moment for moment, _, _ in steps] == ["before", "after"] * (len(steps) // 2), events
        done = [(kind, self.relative(what)) for moment, kind, what in steps if moment == "after"]
        commits = {path for kind, path in done if kind == "delta-commit"}
        new_versions = delta_versions(self.home) - delta_versions(self.base)
        assert commits == new_versions, (events, sorted(new_versions))
        written = {path for kind, path in done if kind == "file-write"}
        removed = {path for kind, path in done if kind == "file-remove"}
        changed = changed_files(runner_files(self.base), runner_files(self.home))
        assert changed <= written | removed and written - changed <= removed, (events, sorted(changed))
        return events

    def crash_points(self, events: list[str], order: Iterable[int] | None = None) -> Iterator[Checked]:
        """Kill the run at each of `order` (default: points(events)), and restart and check after
        each kill. A kill's restart and checks run in a new process that then runs the next point's
        run (lake_process restart-then-crash), so a point costs one JVM start; the last point's
        restart and checks have a process of their own, as has every point's of a kind that is not
        `chained`, whose runs under test are `lakerep` processes of their own too, as the counting
        run is, on the whole base lake restored (its metastore too). Yields
        each point's Checked as its checks end; after one that failed, none more (that process ran
        no next point)."""
        chained = KINDS[self.kind].chained
        killed_at = "-"
        for point in points(events) if order is None else order:
            if killed_at != "-" and not chained:
                checked = Checked.of(killed_at, self.lake_process("check", self.kind, killed_at))
                yield checked
                if not checked.passed:
                    return
                killed_at = "-"
            if killed_at == "-":
                self.restore()
            if not chained:  # the run under test in a process of its own, as the counting run's
                done = self.run(halting_environment(self.journal, point))
            else:
                if killed_at == "-":
                    next_run.catalog_reference(self.base).unlink(missing_ok=True)
                arguments = (killed_at, str(point), str(self.base), str(self.journal))
                done = self.lake_process("restart-then-crash", self.kind, *arguments,
                                         extra=halting_capable_environment())  # fmt: skip
                if killed_at != "-":
                    checked = Checked.of(killed_at, done)
                    yield checked
                    if not checked.passed:
                        return
            assert done.returncode == -signal.SIGKILL, (point, output(done))
            assert self.journal.read_text().splitlines() == events[:point], (point, output(done))
            killed_at = events[point - 1].split(" ", 1)[1]
        yield Checked.of(killed_at, self.lake_process("check", self.kind, killed_at))

    def restore(self) -> None:
        """The whole base lake, metastore included: no process has it open between points; and
        what the kind keeps outside it (a source server)."""
        KINDS[self.kind].before_run()
        next_run.restore_files(self.base, self.home, kept=frozenset())
        self.journal.unlink(missing_ok=True)

    def relative(self, what: str) -> str:
        words = what.split(" ")
        return str(Path(words[0]).relative_to(self.home)) if words[0].startswith(str(self.home)) else what

    def run(self, extra: dict[str, str]) -> subprocess.CompletedProcess:
        return self._process(["-m", "lakerep.cli", *KINDS[self.kind].arguments(self.home)], extra)

    def lake_process(self, *arguments: str, extra: dict | None = None) -> subprocess.CompletedProcess:
        script = self.project / "tests" / "crashpoints" / "lake_process.py"
        return self._process([str(script), *arguments], extra)

    def _process(self, arguments: list[str], extra: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, *arguments], cwd=self.project, env={**self.processes.env, **(extra or {})},
            capture_output=True, text=True, timeout=1200, start_new_session=True,
        )  # fmt: skip


def report(description: str, events: list[str], crashes: int, seconds: float) -> str:
    """A kind's line: its durable steps found, the crashes made and checked, the seconds they took."""
    commits = sum(" after delta-commit " in event for event in events)
    return (
        f"{description}: {len(events) // 2} durable steps ({commits} Delta commits, the rest the runner's "
        f"files and slot confirmations), {crashes} crashes, every check passed after each, {seconds:.0f} s"
    )


def points(events: list[str]) -> list[int]:
    """The events to kill at: every "before", and the last "after"."""
    return [number for number, line in enumerate(events, 1) if line.split()[1] == "before"] + [len(events)]


def output(done: subprocess.CompletedProcess) -> str:
    return done.stdout[-3000:] + done.stderr[-3000:]


def delta_versions(home: Path) -> set[str]:
    """Every table's commit files, by their path in `home`."""
    return {str(path.relative_to(home)) for path in (home / "warehouse").glob("*/*/_delta_log/*.json")}


def runner_files(home: Path) -> dict[str, tuple[int, bytes]]:
    """The runner's own files in `home` (not its temporaries), by path: the time each was written
    (a copy keeps it) and its content."""
    files = {}
    for path in home.rglob("*"):
        relative = path.relative_to(home)
        if relative.parts[0] in NOT_RUNNER_FILES or path.name.startswith(".") or not path.is_file():
            continue
        files[str(relative)] = (path.stat().st_mtime_ns, path.read_bytes())
    return files


def changed_files(before: dict, after: dict) -> set[str]:
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
