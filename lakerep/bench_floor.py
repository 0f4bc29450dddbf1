"""The bench's `cycle-floor` case: the least any correct implementation must write for one cycle.

A plain PySpark job, in the bench's own JVM and on the cycle the `cycle` case has just run: it
appends the cycle's landing batch to one Delta table, MERGEs each changed member's target with the
latest committed change per key (typed from the row images; a CCD target gets every committed
change appended), and commits one cycle record. The targets are shallow clones taken at the
version each had before the cycle, so the job does the work the cycle did, in a scratch schema
that it drops again. No validation, no CD, UOW or CCD table, no restart state, no trail: the
ratio of the cycle to this says what the project's shape costs on top of the data's own work.
The first of those writes alone, the batch appended to an empty Delta table, is the landing's
floor (`append_seconds`): what a landing costs without its batch number's query and its JSON.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from lakerep import landing
from lakerep.registrations import Registration
from lakerep.subscriptions import Member

SCHEMA = "lakerep_bench_floor"


@dataclass(frozen=True)
class FloorRun:
    seconds: float
    statements: int
    commits: int
    jobs: int
    append_seconds: float  # the first statement: the batch appended to the empty changes table


def spark_jobs(spark) -> int:
    """How many Spark jobs this JVM has run so far."""
    return spark.sparkContext._jsc.sc().dagScheduler().numTotalJobs()


def table_versions(spark, tables: list[str]) -> dict[str, int]:
    """Each existing table's current Delta version."""
    versions = {}
    for table in tables:
        if spark.catalog.tableExists(table):
            versions[table] = spark.sql(f"describe history {table} limit 1").collect()[0]["version"]
    return versions


def run_cycle_floor(spark, *, batch: int, members: list[Member], targets: dict[str, int], rounds: int = 2):
    """The floor of the cycle that read landing batch `batch`, for the members whose target is in
    `targets` (relation name -> its version before the cycle: the targets the cycle wrote): the
    last of `rounds` runs (the first ones warm the JVM's plans for these statements, as the
    history cycle warmed the cycle's)."""
    applied = [(member, relation) for member in members for relation in targets if _is(member, relation)]
    result = None
    for _ in range(rounds):
        with _scratch(spark, applied, targets) as clones:
            result = _floor(spark, batch, clones)
    return result


def _is(member: Member, relation: str) -> bool:
    return relation.split(".")[-1] == member.target_table


@contextmanager
def _scratch(spark, applied: list[tuple[Member, str]], targets: dict[str, int]) -> Iterator[list]:
    """Shallow clones of the targets at their versions before the cycle, and an empty changes table
    and cycle table, in a schema of their own that goes again afterwards (none of it timed)."""
    spark.sql(f"drop schema if exists {SCHEMA} cascade")
    spark.sql(f"create schema {SCHEMA}")
    try:
        spark.sql(
            f"create table {SCHEMA}.changes using delta as select * from {landing.SOURCE_LOG_TABLE} limit 0"
        )
        spark.sql(
            f"create table {SCHEMA}.cycles (cycle bigint, batch bigint, completed_at timestamp) using delta"
        )
        clones = []
        for member, relation in applied:
            clone = f"{SCHEMA}.{member.target_table}"
            spark.sql(f"create table {clone} shallow clone {relation} version as of {targets[relation]}")
            clones.append((member, clone, spark.table(clone).columns))
        yield clones
    finally:
        spark.sql(f"drop schema if exists {SCHEMA} cascade")


def _floor(spark, batch: int, clones: list) -> FloorRun:
    statements = [
        f"insert into {SCHEMA}.changes select * from {landing.SOURCE_LOG_TABLE} where landing_batch = {batch}"
    ]
    for member, clone, columns in clones:
        statements.append(_target_sql(member, clone, columns))
    statements.append(f"insert into {SCHEMA}.cycles values (1, {batch}, current_timestamp())")
    jobs = spark_jobs(spark)
    started = time.perf_counter()
    spark.sql(statements[0])
    appended = time.perf_counter()
    for statement in statements[1:]:
        spark.sql(statement)
    seconds = time.perf_counter() - started
    return FloorRun(seconds, len(statements), len(statements), spark_jobs(spark) - jobs, appended - started)


def _changes_sql(registration: Registration) -> str:
    """The batch's committed changes of one source, one row per changed row: the row after the
    change (before it, for a delete), its key-changing updates as a delete and an insert."""
    fields = ", ".join(f"`{column.name}` string" for column in registration.columns)
    key_moved = " or ".join(f"not (b.`{key}` <=> a.`{key}`)" for key in registration.key_columns)
    return f"""
        select commits.log_position as commitseq, commits.log_timestamp as logmarker,
            changes.log_position as intentseq, change.op, change.image
        from (
            select *, from_json(before_image, '{fields}') as b, from_json(after_image, '{fields}') as a
            from {SCHEMA}.changes
            where record_type in ('I', 'U', 'D')
                and source_owner = '{registration.source_owner}'
                and source_table = '{registration.source_table}'
        ) as changes
        inner join (
            select uow_id, log_position, log_timestamp from {SCHEMA}.changes where record_type = 'C'
        ) as commits
            on changes.uow_id = commits.uow_id
        lateral view explode(case
            when record_type = 'D' then array(named_struct('op', 'D', 'image', b))
            when record_type = 'U' and b is not null and ({key_moved})
                then array(named_struct('op', 'D', 'image', b), named_struct('op', 'I', 'image', a))
            else array(named_struct('op', record_type, 'image', a))
        end) as change
    """


def _typed(registration: Registration) -> str:
    return ", ".join(
        f"cast(image.`{column.name}` as {column.data_type}) as `{column.name}`"
        for column in registration.columns
    )


def _target_sql(member: Member, clone: str, columns: list[str]) -> str:
    registration = member.registration
    control = {
        "IBMSNAP_COMMITSEQ": "commitseq",
        "IBMSNAP_INTENTSEQ": "intentseq",
        "IBMSNAP_OPERATION": "op",
        "IBMSNAP_LOGMARKER": "cast(logmarker as timestamp)",
    }
    select = ", ".join(f"{control[name]} as {name}" if name in control else f"`{name}`" for name in columns)
    typed = f"select *, {_typed(registration)} from ({_changes_sql(registration)}) as changes"
    if member.keeps_history:
        return f"insert into {clone} select {select} from ({typed}) as typed"
    keys = ", ".join(f"`{key}`" for key in registration.key_columns)
    latest = f"""
        select {select}, op as floor_op from (
            select *, row_number() over (partition by {keys} order by commitseq desc, intentseq desc, op desc)
                as change_rank
            from ({typed}) as typed
        ) as ranked
        where change_rank = 1
    """
    match = " and ".join(f"t.`{key}` <=> s.`{key}`" for key in registration.key_columns)
    assignments = ", ".join(f"`{name}` = s.`{name}`" for name in columns)
    names = ", ".join(f"`{name}`" for name in columns)
    values = ", ".join(f"s.`{name}`" for name in columns)
    return (
        f"merge into {clone} as t using ({latest}) as s on {match} "
        "when matched and s.floor_op = 'D' then delete "
        f"when matched then update set {assignments} "
        f"when not matched and s.floor_op != 'D' then insert ({names}) values ({values})"
    )
