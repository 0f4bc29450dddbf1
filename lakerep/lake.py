"""The embedded lake: this process's SparkSession and the landing tables in it."""

from __future__ import annotations

from lakerep import dbt

_landing_tables_ready = False


def lake_session():
    """This process's SparkSession, with the landing tables in place.

    dbt's session method starts the session from the `local` profile (the one place Spark is
    configured); the first call has dbt create the landing tables, which starts it.
    """
    global _landing_tables_ready
    from pyspark.sql import SparkSession

    if not _landing_tables_ready:
        dbt.invoke(["run-operation", "lakerep_create_landing_tables"], quiet=True)
        _landing_tables_ready = True
    return SparkSession.builder.getOrCreate()


def reset_lake() -> None:
    """Drop every lakerep schema (landing, staging, control, ...) and recreate empty landing tables."""
    global _landing_tables_ready
    spark = lake_session()
    for (schema,) in spark.sql("show schemas like 'lakerep*'").collect():
        spark.sql(f"drop schema if exists {schema} cascade")
    _landing_tables_ready = False
    lake_session()
