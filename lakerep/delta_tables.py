"""Tables the runner creates on first use (the slot's record, the schema history), created again
after a process that was creating one was killed."""

from __future__ import annotations


def create_if_missing(spark, name: str, definition: str) -> None:
    """`create table if not exists NAME DEFINITION`. A process killed while creating the table
    leaves its location without a first commit (Delta makes `_delta_log` before it commits), and
    Delta refuses to create a table at a location that is neither empty nor a Delta table: every
    later run would fail there until someone removed it by hand. Nothing was committed there, so
    the location goes first."""
    if not spark.catalog.tableExists(name):
        _remove_uncommitted_location(spark, name)
    spark.sql(f"create table if not exists {name} {definition}")


def _remove_uncommitted_location(spark, name: str) -> None:
    """The table's default location, removed when it holds no Delta commit. The embedded lake's
    runner sees its files through its JVM; through Spark Connect it has none of the cluster's, and
    Delta's refusal stands."""
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        return
    database, table = name.split(".")
    identifier = jvm.org.apache.spark.sql.catalyst.TableIdentifier(table, jvm.scala.Some(database))
    location = spark._jsparkSession.sessionState().catalog().defaultTablePath(identifier)
    path = jvm.org.apache.hadoop.fs.Path(location)
    files = path.getFileSystem(spark._jsc.hadoopConfiguration())
    if not files.exists(path):
        return
    commits = files.globStatus(jvm.org.apache.hadoop.fs.Path(path, "_delta_log/*.json"))
    if not commits:
        files.delete(path, True)
