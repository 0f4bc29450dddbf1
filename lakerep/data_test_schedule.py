"""When a session's data tests last passed, kept from one run of the session to the next.

A run's cycle is a `dbt build` with the data tests once TEST_INTERVAL seconds have passed since
they last passed, otherwise a `dbt run` (session.data_tests_due). Kept only within a run, that made
every run's first cycle a build, so a pipeline of `lakerep run --once` paid the data tests, about
as much as the models, in every run (ADR 0006). So the moment they passed is kept in the lakerep
home, in status/<session>.data-tests: {"passed_at": seconds since the epoch, "project": the
fingerprint of the project's files, "run_id" and "cycle_number": the capture cycle that passed}.

A run carries the schedule on (`carried_over`) only when it starts warm (or warmns) without a
token file, on the same project files, on a lake that still holds the cycle that passed (not one
reset or replaced since, by this machine or another), and the moment is not in the future (a
clock set back). Otherwise its first cycle tests: a cold start, a recover, a token file, a changed
model, macro, data test or declaration, a run on another machine (on a cluster each runner has a
home of its own), a record that cannot be read. The record is removed before a cycle with data
tests starts and written once that cycle has passed (`forget`, `remember`), so a failed, cut-off
or killed test cycle leaves none, and the next run tests first. A capture-only run records
nothing: its data tests leave Apply's out.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from lakerep import PROJECT_DIR

# What the models and the data tests are made of: a change to any of them is tested at once.
PROJECT_PARTS = ("dbt_project.yml", "subscriptions.yml", "models", "macros", "data-tests", "seeds")
CARRYING_STARTS = ("warm", "warmns")
_RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")  # a session name, "-", a uuid (session.run_session)


def record_path(home: Path, session: str) -> Path:
    return home / "status" / f"{session}.data-tests"  # not .json: those are the cycle files


def project_fingerprint(project_dir: Path = PROJECT_DIR) -> str:
    """A digest of the project files' names and contents (PROJECT_PARTS)."""
    digest = hashlib.sha256()
    for part in PROJECT_PARTS:
        path = project_dir / part
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if file.is_file():
                digest.update(f"{file.relative_to(project_dir).as_posix()}\0".encode())
                digest.update(file.read_bytes())
                digest.update(b"\0")
    return digest.hexdigest()


def carries_on(start_type: str, token_file: Path | None) -> bool:
    """Whether a run started so may carry on its session's test schedule."""
    return start_type in CARRYING_STARTS and token_file is None


def passed_at(home: Path, session: str) -> float | None:
    """When the session's data tests last passed (seconds since the epoch), as recorded; None
    when no record is there or it cannot be read."""
    try:
        return float(json.loads(record_path(home, session).read_text(encoding="utf-8"))["passed_at"])
    except (OSError, ValueError, TypeError, KeyError):
        return None


def carried_over(
    home: Path,
    session: str,
    fingerprint: str,
    *,
    wall_now: float,
    monotonic_now: float,
    cycle_in_lake: Callable[[str, int], bool],
) -> float | None:
    """The moment (on the clock of `monotonic_now`) the session's data tests last passed on this
    project and this lake, or None: the run's first cycle tests. `cycle_in_lake(run_id,
    cycle_number)` says whether the lake holds that capture cycle."""
    try:
        record = json.loads(record_path(home, session).read_text(encoding="utf-8"))
        passed_at, project = float(record["passed_at"]), record["project"]
        run_id, cycle_number = record["run_id"], int(record["cycle_number"])
    except (OSError, ValueError, TypeError, KeyError):  # none, or not one this module wrote
        return None
    age = wall_now - passed_at
    if project != fingerprint or not 0 <= age < float("inf"):
        return None
    if (
        not isinstance(run_id, str)
        or not _RUN_ID.fullmatch(run_id)
        or not cycle_in_lake(run_id, cycle_number)
    ):
        return None
    return monotonic_now - age


def forget(home: Path, session: str) -> None:
    record_path(home, session).unlink(missing_ok=True)


def remember(
    home: Path, session: str, fingerprint: str, *, passed_at: float, run_id: str, cycle_number: int
) -> None:
    """Record that the data tests passed at `passed_at` (seconds since the epoch) with capture
    cycle `cycle_number` of run `run_id`, replaced in one step (written aside, then renamed)."""
    path = record_path(home, session)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"passed_at": passed_at, "project": fingerprint, "run_id": run_id, "cycle_number": cycle_number}
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(record), encoding="utf-8")
    temporary.replace(path)
