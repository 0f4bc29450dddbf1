"""Runs dbt in-process, one invocation at a time, and maps its result to exit codes.

dbt's session method creates the SparkSession inside this process on its first query, from
the `local` profile's parameters: that profile is the only place Spark is configured. The
runner, the loader and the tests take that same session afterwards (lakerep.lake.lake_session).
With the `cluster` output, that session is a Spark Connect client of the cluster's server.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from lakerep import PROJECT_DIR
from lakerep.class_archive import use_class_archive
from lakerep.delta_jars import use_resolved_delta_jars
from lakerep.profile import check_environment, connect_url

PROFILES_DIR = PROJECT_DIR / "profiles"

# dbt documents these exit codes for dbtRunnerResult: success, handled failure, crash.
EXIT_OK = 0
EXIT_MODEL_ERRORS = 1
EXIT_CRASH = 2


EVENT_CALLBACKS: list = []
"""Callbacks every invocation in this process gets, besides its own: the crash scenarios put their
fault injector here (lakerep.scenarios.crash)."""


_parses: list = []
"""The parsed project (dbt's Manifest; None until the first invocation needs it) of each open
`parse_once`, innermost last."""


class OperationRejected(ValueError):
    """A macro run by `run_operation` refused its arguments (a compile error it raised)."""


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
    messages: tuple[str, ...] = ()  # the macros' log(..., info=True) lines (run_operation)

    def raise_for_failure(self, args: list[str]) -> None:
        if self.exit_code != EXIT_OK:
            raise DbtFailed(args, self.exit_code, self.detail)


def use_project_paths() -> None:
    """Anchor the profile's relative paths to the project, without changing directory, and
    check the environment variables the profile renders."""
    os.environ.setdefault("LAKEREP_HOME", str(PROJECT_DIR / ".lakerep"))
    os.environ.setdefault("LAKEREP_LOG4J", str(PROFILES_DIR / "log4j2.properties"))
    use_resolved_delta_jars()  # no Ivy resolution at each JVM start once one has resolved Delta
    use_class_archive()  # the JVM maps the classes `make install` archived instead of loading them
    check_environment()  # the profile renders these into Spark's settings
    remote = connect_url()
    if remote is not None:
        # Every SparkSession of this process, dbt's and the runner's, is then a Spark Connect
        # client of the cluster's server (pyspark's builder reads SPARK_REMOTE).
        os.environ["SPARK_REMOTE"] = remote
        # dbt-spark asks for Hive support with every statement; a Connect client cannot set that
        # static setting (the server has it) and pyspark warns each time.
        warnings.filterwarnings("ignore", "Failed to set spark.sql.catalogImplementation", UserWarning)


@contextmanager
def parse_once() -> Iterator[None]:
    """Inside, every invocation reuses one parse of the project and writes no JSON artifacts.

    The first invocation inside runs `dbt parse` (which writes target/manifest.json, read by the
    runner's summary) and keeps dbt's Manifest; each invocation then hands it to dbt, which skips
    its own parse (reading partial_parse.msgpack and checking every file) and the two writes of
    manifest.json and the one of run_results.json that every `dbt run` makes: 0.1-1 s of a cycle of
    the same run, about 6 s of one whose vars changed (ADR 0006, eighth cuts). For invocations whose
    project files cannot change in between, such as the cycles of a session. Their vars may differ:
    the project reads its vars when its models run, never when dbt parses them, so the parse takes
    none (and its partial-parse state stays valid from one run to the next, where a new run id in
    the vars made dbt parse everything). Inside another parse_once it changes nothing: the outer
    one's parse serves (a test module that parses once for the sessions it runs).
    """
    if _parses:
        yield
        return
    _parses.append(None)
    try:
        yield
    finally:
        _parses.pop()


def _parsed_project():
    """The Manifest of the innermost open `parse_once`, parsed on first use; None outside."""
    if not _parses:
        return None
    if _parses[-1] is None:
        from dbt.cli.main import dbtRunner

        use_project_paths()
        outcome = dbtRunner(callbacks=list(EVENT_CALLBACKS)).invoke(["--quiet", "parse", *_project_args()])
        exit_code = _exit_code(outcome)
        if exit_code != EXIT_OK:
            raise DbtFailed(["parse"], exit_code, _failure_detail(outcome))
        _parses[-1] = outcome.result
    return _parses[-1]


def _project_args() -> list[str]:
    return ["--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROFILES_DIR)]


def invoke(
    args: list[str], *, check: bool = True, quiet: bool = False, callbacks: list | None = None
) -> DbtOutcome:
    """Run one dbt command against this project; raise DbtFailed when `check` and it fails.
    `callbacks` receive every event dbt fires, whatever is shown. Inside `parse_once`, the
    command reuses its parse and writes no JSON artifacts."""
    from dbt.cli.main import dbtRunner

    use_project_paths()
    manifest = _parsed_project()
    full_args = [*args, *(["--no-write-json"] if manifest is not None else []), *_project_args()]
    if quiet:
        full_args = ["--quiet", *full_args]
    outcome = dbtRunner(manifest=manifest, callbacks=[*EVENT_CALLBACKS, *(callbacks or [])]).invoke(full_args)
    exit_code = _exit_code(outcome)
    result = DbtOutcome(exit_code, outcome.result, _failure_detail(outcome) if exit_code != EXIT_OK else "")
    if check:
        result.raise_for_failure(args)
    return result


def run_operation(macro: str, macro_args: dict) -> DbtOutcome:
    """Run one macro (dbt run-operation) with dbt's console output off (logs/dbt.log keeps it).

    The outcome's messages are the macro's log(..., info=True) lines; a compile error the macro
    raises (its refusal) is OperationRejected with the macro's message, any other failure DbtFailed.
    """
    messages: list[str] = []
    errors: list[str] = []

    def collect(event) -> None:
        if event.info.name == "JinjaLogInfo":
            messages.append(event.data.msg)
        elif event.info.name in ("RunningOperationCaughtError", "RunningOperationUncaughtError"):
            errors.append(event.data.exc)

    args = ["run-operation", macro, "--args", json.dumps(macro_args)]
    outcome = invoke(
        ["--log-level", "none", "--log-level-file", "debug", *args], check=False, callbacks=[collect]
    )
    if outcome.exit_code != EXIT_OK:
        rejection = _compile_error_message(errors[0]) if errors else None
        if rejection:
            raise OperationRejected(rejection)
        detail = errors[0].strip().splitlines()[0] if errors else outcome.detail
        raise DbtFailed(args[:2], outcome.exit_code, detail)
    return DbtOutcome(outcome.exit_code, outcome.result, messages=tuple(messages))


def _exit_code(outcome) -> int:
    """dbt's exit code for a dbtRunnerResult: crash, handled failure or success."""
    if outcome.exception is not None:
        return EXIT_CRASH
    return EXIT_OK if outcome.success else EXIT_MODEL_ERRORS


def _compile_error_message(error: str) -> str | None:
    """The message of a compile error raised by a macro (without dbt's header and call stack)."""
    lines = [line.strip() for line in error.splitlines()]
    headers = [number for number, line in enumerate(lines) if line.startswith("Compilation Error")]
    if not headers:
        return None
    message = []
    for line in lines[headers[0] + 1 :]:
        if not line or line.startswith(">"):
            break
        message.append(line)
    return " ".join(message) or None


def _failure_detail(outcome) -> str:
    if outcome.exception is not None:  # KeyboardInterrupt has no text: its type names it
        text = str(outcome.exception).strip()
        return text.splitlines()[0] if text else type(outcome.exception).__name__
    failures = [
        f"{getattr(getattr(result, 'node', None), 'name', None) or getattr(result, 'unique_id', '?')}: "
        f"{_first_line(result.message) or result.status}{_failing_rows(result)}"
        for result in getattr(outcome.result, "results", []) or []
        if str(result.status) in {"error", "fail", "runtime error"}
    ]
    return "; ".join(failures) or "see logs/dbt.log"


def _failing_rows(result, limit: int = 5) -> str:
    """The first rows a failed data test returns (its compiled SQL run again in this process's
    Spark session), so its failure says what broke without --store-failures: a contract test's
    rows name the rule, the column and a value. Empty when there is no session or they cannot
    be read; the failure is reported either way."""
    node = getattr(result, "node", None)
    sql = getattr(node, "compiled_code", None)
    if str(result.status) != "fail" or getattr(node, "resource_type", None) != "test" or not sql:
        return ""
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is None:
        return ""
    try:
        rows = session.sql(sql).limit(limit).collect()
    except Exception:  # only what the message adds is lost, not the failure
        return ""
    return " (" + "; ".join(json.dumps(row.asDict(), default=str) for row in rows) + ")"


def _first_line(text: str | None) -> str:
    return text.strip().splitlines()[0] if text and text.strip() else ""
