"""The run under test, again, in a process that has just restarted a lake after a kill and checked
it (lake_process.py restart-then-crash): each crash point then costs one JVM start, the restart's,
where a process of its own for the run under test cost a second one and a cold JVM's cycle.

The process's JVM is not the crashed one: the run under test is killed in it, and the next point's
restart is a new process, as an operator's is. What the run under test finds is the base lake: its
files are copied back, the process's caches of the lake (Delta's logs, Spark's cached relations,
the runner's "table exists" flags) are dropped, and the metastore stays open, so it must be the
base's: its tables and views are compared with the base's before each run (catalog_listing).
Whether the run took the same steps as a run in a fresh process is the enumeration's to check: its
journal up to the kill must equal the counting run's."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from crashpoints.journal import AT_VARIABLE, JOURNAL_VARIABLE

from lakerep import lake, lake_locks

# Files of the lakerep home the base copy does not bring back under a live process: the open
# metastore (compared instead) and dbt's compiled project and logs, which no run reads as state.
KEPT_OPEN = frozenset({"metastore_db", "derby.log", "target", "logs"})


def catalog_listing(spark) -> list[list[str]]:
    """Every table and view of the metastore, with the columns it records for it. A view's text
    is left out: the cycle's views that inline its run's values are written again by each cycle,
    before it reads them, where their definition differs (macros/materializations/view.sql), so
    they hold no state a run reads; their columns stay. A run that changed what the metastore
    records of a table's or view's columns (a schema evolution) leaves another listing."""
    external = spark._jsparkSession.sharedState().externalCatalog()
    listing = []
    for (database,) in spark.sql("show databases").collect():
        views = {row.viewName for row in spark.sql(f"show views in {database}").collect()}
        for row in spark.sql(f"show tables in {database}").collect():
            if not row.isTemporary:
                columns = external.getTable(database, row.tableName).schema().json()
                kind = "view" if row.tableName in views else "table"
                listing.append([f"{database}.{row.tableName}", kind, columns])
    return sorted(listing)


def catalog_reference(base: Path) -> Path:
    """Where the listing of the base lake in `base` is kept, beside it."""
    return base.with_name(base.name + "-catalog.json")


def check_catalog_is_the_bases(spark, base: Path) -> None:
    """The first call after the base's reference was removed records the listing of the base lake;
    every later one compares with it."""
    reference = catalog_reference(base)
    listing = catalog_listing(spark)
    if not reference.exists():
        reference.write_text(json.dumps(listing), encoding="utf-8")
        return
    base = json.loads(reference.read_text(encoding="utf-8"))
    changed = {entry[0] for entry in listing if entry not in base}
    changed |= {entry[0] for entry in base if entry not in listing}
    if changed:
        raise SystemExit(
            "the metastore is no longer the base lake's, so the run under test cannot follow a check in "
            f"one process: {sorted(changed)}"
        )


def restore_files(base: Path, home: Path, kept: frozenset[str] = KEPT_OPEN) -> None:
    """The lakerep home `home` as the base copy `base` holds it, but for the entries `kept`."""
    home.mkdir(exist_ok=True)
    for entry in home.iterdir():
        if entry.name in kept:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    for entry in base.iterdir():
        if entry.name in kept:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, home / entry.name, symlinks=True)
        else:
            shutil.copy2(entry, home / entry.name, follow_symlinks=False)


def forget_the_lake(spark) -> None:
    """Drop what this process knows of the lake, as a new process knows nothing of it."""
    spark.catalog.clearCache()
    spark._jvm.org.apache.spark.sql.delta.DeltaLog.clearCache()
    lake._landing_tables_ready = False
    lake_locks._table_ready = False


def halt_at(spark, journal: Path, point: int) -> None:
    """Journal from now on, in the runner (environment) and in its JVM's log store (system
    properties: a JVM's environment is fixed at its start), and be killed at event `point`."""
    journal.unlink(missing_ok=True)
    for name, value in ((JOURNAL_VARIABLE, str(journal)), (AT_VARIABLE, str(point))):
        os.environ[name] = value
        spark._jvm.java.lang.System.setProperty(name, value)
