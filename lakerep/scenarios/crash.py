"""Crash points: the runner dies just before the N-th SQL statement dbt sends (SPEC §7).

Every write lakerep makes is one SQL statement dbt sends to Spark (a Delta commit each), so "just
before statement N" reaches every state a kill -9 can leave: between models, inside a model
between its pre-hook and its merge, between a data write and the state write after it. A kill
during a statement leaves the state before or after it, since a Delta commit is atomic.

Two ways to die there:
  kill   SIGKILL to the runner's process group (the runner and its JVM), as `kill -9` would;
         for runners in a process of their own (`python -m lakerep.scenarios.crashing_runner`).
  abort  the statement, and every one after it in this process, raises instead of running, so
         nothing more is written; the runner's own steps after dbt stop with the error. For
         runners inside the scenario process, which keeps its SparkSession (a JVM start per
         runner would cost more than the scenario). The runner's lock is released as it ends;
         leave_a_killed_runners_lock then puts back what a kill leaves there, and
         forget_a_killed_runners_settings takes away what a kill takes with the runner's session.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from lakerep import dbt
from lakerep.session_lock import lock_path, lock_record

MODES = ("kill", "abort")


class InjectedCrash(RuntimeError):
    """Raised in place of a SQL statement at or after an abort crash point."""


@dataclass
class CrashInjector:
    """A dbt event callback counting the SQL statements of this process; at statement `at` it
    kills the process group (mode kill) or starts failing every statement (mode abort). With
    `at` None it only counts (how many statements a complete run sends)."""

    at: int | None
    mode: str = "abort"
    statements: int = 0
    fired_at: str | None = field(default=None)  # where it crashed: node and statement
    failed_before: list[str] = field(default_factory=list)  # nodes that failed before the crash

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"crash mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.at is not None and self.at < 1:
            raise ValueError(f"a crash point is a statement number from 1, not {self.at}")

    def __call__(self, event) -> None:
        finished = event.info.name == "NodeFinished"
        if finished and self.fired_at is None and event.data.run_result.status in ("error", "fail"):
            self.failed_before.append(event.data.node_info.unique_id)
        if event.info.name != "SQLQuery":
            return
        self.statements += 1
        if self.fired_at is None and self.statements == self.at:
            node = getattr(event.data.node_info, "unique_id", "") or "(no node: a hook or an operation)"
            statement = re.sub(r"^\s*/\*.*?\*/", "", event.data.sql, flags=re.DOTALL).strip()  # dbt's comment
            first_line = statement.splitlines()[0][:80] if statement else ""
            self.fired_at = f"statement {self.at}, in {node}: {first_line}"
            if self.mode == "kill":
                kill_this_runner()
        if self.fired_at is not None:
            raise InjectedCrash(f"crashed before {self.fired_at}")

    @property
    def fired(self) -> bool:
        return self.fired_at is not None


def kill_this_runner() -> None:
    """SIGKILL this process and, when it leads its process group, its JVM with it."""
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)  # the JVM ends when its stdin closes


def leave_a_killed_runners_lock(home: Path, session: str) -> None:
    """What a kill -9 of a runner leaves that an abort does not: its session lock, naming a
    process of this host that is gone. The next runner must take it over, and the commands that
    wait for runners to stop (refresh, mark-external-refresh, prune) must not wait for it."""
    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid names no process now (pids are reused only after the range wraps)
    lock = lock_path(home, session)
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(lock_record(gone.pid), encoding="utf-8")


# Settings a runner's statements SET on its SparkSession and RESET after use: the transaction
# identifiers of an idempotent append (macros/incremental/spark__get_merge_sql.sql) and
# Delta's file skipping (lakerep_file_skipping).
RUNNER_STATEMENT_SETTINGS = (
    "spark.databricks.delta.write.txnAppId",
    "spark.databricks.delta.write.txnVersion",
    "spark.databricks.delta.stats.skipping",
)


def forget_a_killed_runners_settings(spark) -> None:
    """What a kill -9 of a runner takes with it that an abort leaves: the settings its statements
    set on the SparkSession, which this process keeps. An abort between the SET of txnAppId and
    that of txnVersion left txnAppId alone, and the next Delta write outside dbt (the scenario's
    landing) failed with DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS (seed 4)."""
    for setting in RUNNER_STATEMENT_SETTINGS:
        spark.conf.unset(setting)


@contextmanager
def injected(injector) -> Iterator:
    """The injector receives the events of every dbt invocation inside the block."""
    dbt.EVENT_CALLBACKS.append(injector)
    try:
        yield injector
    finally:
        dbt.EVENT_CALLBACKS.remove(injector)
