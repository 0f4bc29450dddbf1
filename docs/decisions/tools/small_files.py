"""ADR 0006, small files: what a Delta table's file count costs a read, and what Delta's auto
compaction does to a table that gets one small file per write, as a control table gets one per
cycle. In a scratch schema of the lake's session (the profile's Spark settings), alone:
    python docs/decisions/tools/small_files.py
Prints the best and median of 5 reads of a 1,000-row table held in 1 file and in ~1,000 (one
commit each), then 60 one-row appends with auto compaction off and on: their seconds, the files
and versions after them, and a read.
"""

import time

from lakerep.lake import lake_session

spark = lake_session()
spark.sql("drop schema if exists small_files_probe cascade")
spark.sql("create schema small_files_probe")
QUERY = "select max(cycle_number), count(*) from small_files_probe.{} where cycle_number >= 0"


def timed(label: str, table: str, repeat: int = 5) -> None:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        spark.sql(QUERY.format(table)).collect()
        times.append(time.perf_counter() - start)
    print(f"{label}: best {min(times):.2f} s, median {sorted(times)[len(times) // 2]:.2f} s", flush=True)


def files(table: str) -> int:
    return spark.sql(f"describe detail small_files_probe.{table}").collect()[0]["numFiles"]


setting = "spark.databricks.delta.autoCompact.enabled"
profile_value = spark.conf.get(setting, "false")
spark.conf.set(setting, "false")  # the many files stay many
rows = spark.range(1000).selectExpr("id as cycle_number", "uuid() as v")
rows.coalesce(1).write.format("delta").saveAsTable("small_files_probe.one_file")
rows.repartition(1000).write.format("delta").saveAsTable("small_files_probe.many_files")
timed(f"read, {files('one_file')} file", "one_file")
timed(f"read, {files('many_files')} files", "many_files")
for compact in (False, True):
    table = f"appends_compact_{str(compact).lower()}"
    spark.sql(f"create table small_files_probe.{table} (cycle_number bigint, v string) using delta")
    spark.conf.set(setting, str(compact).lower())
    times = []
    for cycle in range(60):
        start = time.perf_counter()
        spark.sql(f"insert into small_files_probe.{table} values ({cycle}, 'x')")
        times.append(time.perf_counter() - start)
    versions = len(spark.sql(f"describe history small_files_probe.{table}").collect())
    state = "on" if compact else "off"
    print(
        f"auto compaction {state}: 60 appends {sum(times):.1f} s, slowest {max(times):.2f} s,"
        f" {files(table)} files, {versions} versions",
        flush=True,
    )
    timed(f"read after them (auto compaction {state})", table)
spark.conf.set(setting, profile_value)
spark.sql("drop schema small_files_probe cascade")
