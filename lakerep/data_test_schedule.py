"""When the lake's data tests last passed, kept from one run to the next (ADR 0006, fifteenth cuts).

A run's cycle is a `dbt build` with the data tests once TEST_INTERVAL seconds have passed since
they last passed, otherwise a `dbt run` (session.data_tests_due). Kept only within a run, that made
every run's first cycle a build, so a pipeline of `lakerep run --once` paid the data tests, about
as much as the models, in every run. So the moment they passed is kept beside the embedded lake,
in status/data-tests under the lakerep home: {"passed_at": seconds since the epoch, "project": the
fingerprint of what the models and tests are made of, "run_id" and "cycle_number": the capture
cycle they passed with}. The data tests read the whole lake, so the record is the lake's, whichever
session wrote it.

A run carries the schedule on (`carried_over`) only when it starts warm (or warmns) without a
token file on the embedded lake, with the same project and lakerep, on a lake that still holds the
cycle that passed (not one reset or replaced since), and the moment is not in the future (a clock
set back). Otherwise its first cycle tests: a cold start, a recover, a token file, a changed model,
macro, data test, declaration or lakerep, a record that cannot be read, a cluster's lake (each
runner there has a home of its own, which would not see the others' tests). The record is removed
(`forget`) before any cycle with data tests starts, a capture-only one too, and by the commands
that change what the next cycle applies (refresh, mark-external-refresh, prune); it is written
(`remember`) once a whole cycle's tests have passed. So a failed, cut-off or killed test cycle
leaves none, and the next run tests first. A run whose first cycle finished a cut-off one, or
turned into an automatic cold start, without testing, forgets it too and tests in its next cycle.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from lakerep import PROJECT_DIR
from lakerep.durable import durable_step
from lakerep.status_files import replace_in_one_step

# What the models, the data tests and the runner's vars are made of: a change to any of them is
# tested at once. The runner's package, and the versions of what runs the SQL, count too.
PROJECT_PARTS = ("dbt_project.yml", "subscriptions.yml", "models", "macros", "data-tests", "seeds", "lakerep")
RUNTIME_PACKAGES = ("dbt-core", "dbt-spark", "pyspark", "delta-spark")
CARRYING_STARTS = ("warm", "warmns")
_RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")  # a session name, "-", a uuid (session.run_session)


def record_path(home: Path) -> Path:
    return home / "status" / "data-tests"  # not .json: those are the sessions' cycle files


def project_fingerprint(project_dir: Path = PROJECT_DIR) -> str:
    """A digest of the project files' names and contents (PROJECT_PARTS; Python's byte code
    left out) and of the runtime packages' versions."""
    digest = hashlib.sha256()
    for part in PROJECT_PARTS:
        path = project_dir / part
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if file.is_file() and file.suffix != ".pyc":
                digest.update(f"{file.relative_to(project_dir).as_posix()}\0".encode())
                digest.update(file.read_bytes())
                digest.update(b"\0")
    for package in RUNTIME_PACKAGES:
        try:
            digest.update(f"{package}={metadata.version(package)}\0".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{package}=none\0".encode())
    return digest.hexdigest()


def carries_on(start_type: str, token_file: Path | None) -> bool:
    """Whether a run started so may carry on the lake's test schedule."""
    return start_type in CARRYING_STARTS and token_file is None


def _record(home: Path) -> tuple[float, str, str, int] | None:
    """The record's (passed_at, project, run_id, cycle_number); None when there is none or it is
    not one this module wrote."""
    try:
        record = json.loads(record_path(home).read_text(encoding="utf-8"))
        return float(record["passed_at"]), record["project"], record["run_id"], int(record["cycle_number"])
    except (OSError, ValueError, TypeError, KeyError):
        return None


def passed_at(home: Path) -> float | None:
    """When the lake's data tests last passed (seconds since the epoch), as recorded."""
    record = _record(home)
    return None if record is None else record[0]


def carried_over(
    home: Path,
    fingerprint: str,
    *,
    wall_now: float,
    monotonic_now: float,
    cycle_in_lake: Callable[[str, int], bool],
) -> float | None:
    """The moment (on the clock of `monotonic_now`) the lake's data tests last passed on this
    project, or None: the run's first cycle tests. `cycle_in_lake(run_id, cycle_number)` says
    whether the lake holds that capture cycle."""
    record = _record(home)
    if record is None:
        return None
    passed, project, run_id, cycle_number = record
    age = wall_now - passed
    if project != fingerprint or not 0 <= age < float("inf"):
        return None
    if not isinstance(run_id, str) or not _RUN_ID.fullmatch(run_id):  # never put into SQL
        return None
    if not cycle_in_lake(run_id, cycle_number):  # a lake reset or replaced since
        return None
    return monotonic_now - age


def forget(home: Path) -> None:
    path = record_path(home)
    if path.exists():
        with durable_step(f"file-remove {path}"):
            path.unlink(missing_ok=True)


def remember(home: Path, fingerprint: str, *, passed_at: float, run_id: str, cycle_number: int) -> None:
    """Record that the data tests passed at `passed_at` (seconds since the epoch) with capture
    cycle `cycle_number` of run `run_id`, replaced in one step (written aside, then renamed)."""
    record = {"passed_at": passed_at, "project": fingerprint, "run_id": run_id, "cycle_number": cycle_number}
    replace_in_one_step(record_path(home), json.dumps(record))
