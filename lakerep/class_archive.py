"""A class-data-sharing archive of the embedded JVM's classes (JDK AppCDS), made once by `make
install` and used by every later JVM start.

A runner's JVM loads about 20,000 classes of Spark, Delta, Hive and Derby before its first
statement: a third of a short command's JVM CPU, paid again by every `lakerep` command and every
runner process. The JDK can keep the parsed, verified classes of one run in an archive that later
JVMs map instead of loading (`-XX:ArchiveClassesAtExit`, then `-XX:SharedArchiveFile`). `python -m
lakerep.class_archive` runs the archiving JVM through a small workload of the statements a cycle
makes; the runner then points the profile at the archive (LAKEREP_CLASS_ARCHIVE, which the profile
renders into the driver's JVM options), as it does at Delta's resolved jars.

The archive lies in the Python environment (it belongs to its pyspark and the JDK), named by what
it was made from, so that another pyspark, Delta or JDK makes a new one. A JVM that finds the
archive unusable (another class path, as a test's log store adds, or another JDK build) starts
without it, silently: the archive only ever saves time.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

ARCHIVE_VARIABLE = "LAKEREP_CLASS_ARCHIVE"
# The statements the archiving JVM runs: the kinds a cycle makes (a Delta table created, written by
# insert and merge, read back by joins, windows and aggregates; views and the metastore's answers).
WORKLOAD = (
    "create schema if not exists archive",
    "create table archive.facts (k bigint, v string, at timestamp) using delta",
    "insert into archive.facts values (1, 'a', current_timestamp()), (2, 'b', current_timestamp())",
    "merge into archive.facts as t using (select 2 as k, 'c' as v, current_timestamp() as at union all "
    "select 3, 'd', current_timestamp()) as s on t.k = s.k "
    "when matched then update set * when not matched then insert *",
    "update archive.facts set v = upper(v) where k = 1",
    "delete from archive.facts where k = 3",
    "create or replace view archive.latest as "
    "select k, v, row_number() over (partition by k order by at desc) as n from archive.facts",
    "select f.k, count(*), max(l.v), collect_list(f.v) from archive.facts as f join archive.latest as l "
    "on f.k = l.k where l.n = 1 group by f.k order by f.k",
    "describe table extended archive.facts",
    "describe history archive.facts",
    "show tables in archive",
)


@cache
def archive_path() -> Path:
    """Where this environment's archive lies, named by what it is made from."""
    import pyspark

    from lakerep.delta_jars import resolved_delta_jars

    java = os.path.realpath(shutil.which("java") or "")
    made_from = [pyspark.__version__, java, *(jar.name for jar in resolved_delta_jars()), *WORKLOAD]
    key = hashlib.sha256("\n".join(made_from).encode()).hexdigest()[:16]
    return Path(sys.prefix) / "lakerep-class-archive" / f"{key}.jsa"


def use_class_archive(environment: dict | None = None) -> None:
    """Point the profile at the archive (LAKEREP_CLASS_ARCHIVE), unless it is set already or there is
    none: then the JVM loads its classes as it always did."""
    variables = os.environ if environment is None else environment
    if variables.get(ARCHIVE_VARIABLE):
        return
    archive = archive_path()
    if archive.is_file():
        variables[ARCHIVE_VARIABLE] = str(archive)


def make_class_archive() -> Path:
    """Make the archive, unless this environment has it: a JVM of its own runs the workload and
    writes the archive as it exits; it is renamed into place once that JVM has ended."""
    archive = archive_path()
    if archive.is_file():
        return archive
    archive.parent.mkdir(parents=True, exist_ok=True)
    written = archive.with_name(f".{archive.stem}.{os.getpid()}.jsa")
    with tempfile.TemporaryDirectory(prefix="lakerep-archive-") as home:
        environment = {**os.environ, "LAKEREP_HOME": home}
        environment.pop(ARCHIVE_VARIABLE, None)
        subprocess.run([sys.executable, "-m", "lakerep.class_archive", "--archive-to", str(written)],
                       env=environment, check=True)  # fmt: skip
    if not written.is_file():
        raise SystemExit(f"the JVM wrote no class archive at {written}")
    written.replace(archive)
    return archive


def _run_the_workload(written: str) -> None:
    """In the archiving process: a SparkSession as the profile makes it, the workload, and a wait
    for the JVM's end, when it writes the archive."""
    from pyspark.sql import SparkSession

    from lakerep import dbt
    from lakerep.profile import spark_settings

    dbt.use_project_paths()
    settings = spark_settings()
    settings["spark.driver.extraJavaOptions"] += f" -XX:ArchiveClassesAtExit={written} -Xlog:cds=off"
    builder = SparkSession.builder
    for name, value in settings.items():
        if value:
            builder = builder.config(name, value)
    spark = builder.getOrCreate()
    for statement in WORKLOAD:
        spark.sql(statement).collect()
    gateway = spark.sparkContext._gateway
    spark.stop()
    jvm = gateway.proc
    gateway.shutdown()
    jvm.stdin.close()  # the JVM ends when its input does, and writes the archive on the way out
    jvm.wait()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--archive-to"]:
        _run_the_workload(sys.argv[2])
    else:
        print("class archive:", make_class_archive())
