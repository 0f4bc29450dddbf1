"""Tables made on first use, and the table locations a killed process left without a first
commit, removed before a process makes tables.

Delta makes a table's `_delta_log` (and a staged commit in it) before it commits the table's first
version, and refuses to create a table at a location that is neither empty nor a Delta table: a
process killed in between (a new lake's first command making the landing tables, a cycle making a
model's table, the schema history's first column change) left every later command failing there
until someone removed the folder by hand. Nothing was committed there, so the folder goes."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import urlparse


def remove_uncommitted_locations(spark) -> list[Path]:
    """Remove every folder of the lake's schemas that holds a `_delta_log` with no commit and no
    checkpoint in it; the folders removed.

    Only on the embedded lake, whose metastore admits one process (Derby): once this process has
    it open, no other process can be making a table in the lake. Through Spark Connect the runner
    sees none of the cluster's files, and Delta's refusal stands."""
    if getattr(spark, "_jvm", None) is None:
        return []
    removed = []
    for database in spark.catalog.listDatabases():
        location = urlparse(database.locationUri)
        folder = Path(location.path)
        if location.scheme not in ("", "file") or not folder.is_dir():
            continue
        for table in folder.iterdir():
            log = table / "_delta_log"
            if log.is_dir() and not any(log.glob("*.json")) and not any(log.glob("*.checkpoint*")):
                shutil.rmtree(table)
                removed.append(table)
    return removed


def create_if_missing(spark, name: str, definition: str) -> None:
    """`create table NAME DEFINITION` unless the table exists (one lookup in the catalog: the
    slot's record asks at every confirmation). A location a killed creation left is gone already:
    lake.lake_session removed it as the process opened the lake."""
    if not spark.catalog.tableExists(name):
        spark.sql(f"create table if not exists {name} {definition}")
