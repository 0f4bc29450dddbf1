"""Runs dbt in-process, one invocation at a time, and maps its result to exit codes.

dbt's session method creates the SparkSession inside this process on its first query, from
the `local` profile's parameters: that profile is the only place Spark is configured. The
runner, the loader and the tests take that same session afterwards (see `spark_session`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from lakerep import PROJECT_DIR

PROFILES_DIR = PROJECT_DIR / "profiles"

# dbt documents these exit codes for dbtRunnerResult: success, handled failure, crash.
EXIT_OK = 0
EXIT_MODEL_ERRORS = 1
EXIT_CRASH = 2


class DbtFailed(RuntimeError):
    """A dbt invocation did not succeed; `exit_code` follows dbt's convention."""

    def __init__(self, args: list[str], exit_code: int, detail: str) -> None:
        super().__init__(f"dbt {' '.join(args)} failed (exit {exit_code}): {detail}")
        self.exit_code = exit_code


@dataclass(frozen=True)
class DbtOutcome:
    exit_code: int
    result: object
    detail: str = ""  # what failed, when it did

    def raise_for_failure(self, args: list[str]) -> None:
        if self.exit_code != EXIT_OK:
            raise DbtFailed(args, self.exit_code, self.detail)


def use_project_paths() -> None:
    """Anchor the profile's relative paths to the project, without changing directory."""
    os.environ.setdefault("LAKEREP_HOME", str(PROJECT_DIR / ".lakerep"))
    os.environ.setdefault("LAKEREP_LOG4J", str(PROFILES_DIR / "log4j2.properties"))


def invoke(args: list[str], *, check: bool = True, quiet: bool = False) -> DbtOutcome:
    """Run one dbt command against this project; raise DbtFailed when `check` and it fails."""
    from dbt.cli.main import dbtRunner

    use_project_paths()
    full_args = [
        *args,
        "--project-dir",
        str(PROJECT_DIR),
        "--profiles-dir",
        str(PROFILES_DIR),
    ]
    if quiet:
        full_args = ["--quiet", *full_args]
    outcome = dbtRunner().invoke(full_args)
    if outcome.exception is not None:
        exit_code = EXIT_CRASH
    elif outcome.success:
        exit_code = EXIT_OK
    else:
        exit_code = EXIT_MODEL_ERRORS
    result = DbtOutcome(exit_code, outcome.result, _failure_detail(outcome) if exit_code != EXIT_OK else "")
    if check:
        result.raise_for_failure(args)
    return result


def _failure_detail(outcome) -> str:
    if outcome.exception is not None:
        return str(outcome.exception).strip().splitlines()[0]
    failures = [
        f"{getattr(result.node, 'name', '?')}: {_first_line(result.message) or result.status}"
        for result in getattr(outcome.result, "results", []) or []
        if str(result.status) in {"error", "fail", "runtime error"}
    ]
    return "; ".join(failures) or "see logs/dbt.log"


def _first_line(text: str | None) -> str:
    return text.strip().splitlines()[0] if text and text.strip() else ""
