"""The embedded lake: its home, this process's SparkSession and the landing tables in it."""

from __future__ import annotations

import os
import shutil
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lakerep import dbt
from lakerep.delta_tables import remove_uncommitted_locations
from lakerep.lake_locks import LEASES_SCHEMA
from lakerep.locks import critical_section, refuse_if_active

_landing_tables_ready = False


def lake_home() -> Path:
    """The lakerep home (LAKEREP_HOME, default .lakerep/ in the project): the lake and its locks.

    Every entry point asks for it before Spark or dbt start, so the variables the profile renders
    into Spark's settings are checked first (dbt.use_project_paths: ValueError naming the variable)."""
    dbt.use_project_paths()
    return Path(os.environ["LAKEREP_HOME"])


def lake_session():
    """This process's SparkSession, with the landing tables in place.

    dbt's session method starts the session from the `local` profile (the one place Spark is
    configured); the first call has dbt create the landing tables, which starts it, and refuse a
    lake that an earlier layout built (OperationRejected, one line).
    """
    global _landing_tables_ready
    from pyspark.sql import SparkSession

    if not _landing_tables_ready:
        lake_home()
        with _sigint_handler_kept():
            # A lake of an earlier layout is refused here, with the macro's line (OperationRejected).
            try:
                dbt.run_operation("lakerep_create_landing_tables", {})
            except dbt.DbtFailed:
                # Spark and the metastore are open now: a table location a killed process left
                # without a commit, which Delta refuses to create a table at, can go; then again.
                if not remove_uncommitted_locations(SparkSession.builder.getOrCreate()):
                    raise
                dbt.run_operation("lakerep_create_landing_tables", {})
            else:
                remove_uncommitted_locations(SparkSession.builder.getOrCreate())  # a model table's too
        _landing_tables_ready = True
    return SparkSession.builder.getOrCreate()


@contextmanager
def _sigint_handler_kept() -> Iterator[None]:
    """The process's SIGINT handler as it was before the body, where Spark may start: PySpark's
    SparkContext puts in its own (cancel every job, raise KeyboardInterrupt), which would cut a
    session's cycle off halfway where the session's handler lets it finish, then stops."""
    on_main_thread = threading.current_thread() is threading.main_thread()
    handler = signal.getsignal(signal.SIGINT) if on_main_thread else None
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)


@contextmanager
def exclusive_lake() -> Iterator[Path]:
    """Have the lake to ourselves for the body of the with statement (a command that starts it
    afresh: reset_lake, `lakerep generate --fresh`, `lakerep demo`); yields its home.

    The same locks `lakerep refresh` and `lakerep prune` take, and what a runner holds: refused
    (SessionActive) while any session runs, since the lake a runner captures into would vanish
    under it between two of its cycles; then the lake's critical section, so no cycle or command
    of another process writes meanwhile. A session lock would not do: it is one session's, and
    the lake is every session's."""
    home = lake_home()
    refuse_if_active(home)
    with critical_section(home):
        refuse_if_active(home)  # a runner may have started while we waited
        yield home


def reset_lake() -> None:
    """Drop every lakerep schema (landing, staging, control, ...) but the locks' and recreate
    empty landing tables, with the lake to ourselves (exclusive_lake)."""
    global _landing_tables_ready
    with exclusive_lake() as home:
        spark = lake_session()
        for (schema,) in spark.sql("show schemas like 'lakerep*'").collect():
            if schema != LEASES_SCHEMA:  # on a cluster, the locks this reset holds (lake_locks)
                spark.sql(f"drop schema if exists {schema} cascade")
        shutil.rmtree(home / "status", ignore_errors=True)  # `lakerep status`: the dropped lake's cycles
        _landing_tables_ready = False
        lake_session()
