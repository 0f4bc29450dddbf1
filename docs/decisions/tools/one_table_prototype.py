"""ADR 0006, "Where issue 21 ends": what one physical CD table and one physical CCD table for every
registered source would cost a 10k cycle's writes, against the four CD appends and four CCD merges
of today.

Run from the project root with the project's environment (LAKEREP_HOME and DBT_PROFILES_DIR set
as the Makefile sets them), alone on the machine:
    python docs/decisions/tools/one_table_prototype.py [HISTORY_RECORDS] [CYCLE_RECORDS] [ROUNDS]
It resets the lake, runs a history cycle and a cycle of CYCLE_RECORDS through dbt (as the harness
does), then times, in the same warm session, the writes of that cycle's rows into scratch tables
(schema `proto`), never into the project's own. Each round starts both sides from the tables as
they stood before the cycle, and runs the per-table side first:
  - per table: each CD model's compiled SQL appended to a copy of its CD table, then each CCD
    model's compiled SQL, reading those copies, merged into a copy of its CCD table on the
    model's unique key, with dbt's position floor (non-condensed) or "only if later" condition
    (condensed);
  - one table: the cycle's log records of every registered table appended to one CD table in one
    pass (images kept as the landed JSON; key-changing updates split as the CD models split them),
    then the CCD rows of every table, read through views that parse that table's images, merged
    into one CCD table on (source, unique key) in one MERGE, with the floor on the non-condensed
    rows.
It prints the rows each side wrote, which must agree. Only the write statements are timed: dbt's
own work per node (0.1-0.5 s in the harness: model time less statement time) comes on top of the
per-table side, and the typed views' parsing on top of every later reader of the one-table side.
"""

import contextlib
import re
import statistics
import sys
import time
import uuid
from pathlib import Path

from lakerep import dbt, landing
from lakerep.lake import lake_session, reset_lake
from lakerep.pipeline import land_refresh_snapshots, land_workload, run_cycle
from lakerep.registrations import cd_model_name, load_registrations

records = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
cycle_records = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3

lake_session()
reset_lake()
spark = lake_session()
run_vars = {"lakerep_run_id": f"proto-{uuid.uuid4()}"}
with dbt.parse_once():
    history = land_workload(records=records, seed=42, batch_records=10000)
    land_refresh_snapshots(history.workload)
    run_cycle(quiet=True, command="run", run_vars=run_vars)
    ccd_versions = {}
    registrations = load_registrations()
    # the part of the model names after cd_/ccd_ (lakerep.registrations names the models)
    names = {key: cd_model_name(r).removeprefix("cd_") for key, r in registrations.items()}
    for name in names.values():
        ccd_versions[name] = spark.sql(f"describe history lakerep_capture.ccd_{name} limit 1").first().version
    landing.land_log_records(spark, history.workload.next_batch(cycle_records).records)
    started = time.perf_counter()
    run_cycle(quiet=True, command="run", run_vars=run_vars)
    print(f"the {cycle_records:,}-record cycle through dbt: {time.perf_counter() - started:.1f} s")

compiled = Path("target/compiled/lakerep/models/capture")


def model_sql(kind: str, name: str) -> str:
    text = (compiled / kind / f"{kind}_{name}.sql").read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if not line.startswith("--"))


cd_sql = {name: model_sql("cd", name) for name in names.values()}
ccd_unique_key = {
    name: re.findall(r"'([^']+)'", re.search(r"unique_key=\[([^\]]*)\]", (Path("models/capture/ccd") / f"ccd_{name}.sql").read_text())[1])
    for name in names.values()
}
ccd_sql = {name: model_sql("ccd", name) for name in names.values()}
window = re.search(r"\(landing_batch > (\d+) and landing_batch <= (\d+)\)", cd_sql[next(iter(cd_sql))])
after_batch, up_to_batch = int(window[1]), int(window[2])
print(f"the cycle's window: landing batches {after_batch + 1}..{up_to_batch}")


def timed(sql: str) -> float:
    started = time.perf_counter()
    spark.sql(sql).collect()
    return time.perf_counter() - started


def string_schema(registration, prefix: str = "") -> str:
    return ", ".join(f"`{prefix}{column.name}` string" for column in registration.columns)


def typed_columns(registration, struct: str, prefix: str = "") -> str:
    return ", ".join(
        f"cast({struct}.`{column.name}` as {column.data_type}) as `{prefix}{column.name}`"
        for column in registration.columns
    )


spark.sql("create database if not exists proto")


def is_source(r) -> str:
    return f"(source_owner = '{r.source_owner}' and source_table = '{r.source_table}')"


registered = " or ".join(is_source(r) for r in registrations.values())
# A key-changing update of a table registered with key_updates_as_delete_insert is a delete of the
# old key and an insert of the new one, as in lakerep_cd_model.
split_key_update = " or ".join(
    f"({is_source(r)} and not ("
    + " and ".join(f"get_json_object(before_image, '$.{key}') <=> get_json_object(after_image, '$.{key}')" for key in r.key_columns)
    + "))"
    for r in registrations.values()
    if r.key_updates_as_delete_insert
) or "false"
# One pass over the log: every registered table's row changes, images as landed.
one_cd_select = f"""
select source_owner, source_table, uow_id as IBMSNAP_UOWID, log_position as IBMSNAP_INTENTSEQ,
    change.operation as IBMSNAP_OPERATION, change.image, change.prior_image, landing_batch
from lakerep_staging.stg_source_log
lateral view explode(case
    when record_type = 'U' and before_image is not null and ({split_key_update}) then array(
        named_struct('operation', 'D', 'image', before_image, 'prior_image', before_image),
        named_struct('operation', 'I', 'image', after_image, 'prior_image', cast(null as string)))
    when record_type = 'D' then array(named_struct('operation', 'D', 'image', before_image, 'prior_image', before_image))
    when record_type = 'I' then array(named_struct('operation', 'I', 'image', after_image, 'prior_image', cast(null as string)))
    when record_type = 'U' then array(named_struct('operation', 'U', 'image', after_image, 'prior_image', before_image))
end) changes as change
where ({registered}) and landing_batch > {{after}} and landing_batch <= {{up_to}}
"""
# dbt's floor on a non-condensed CCD's MERGE: the lowest position the cycle reads.
floor = spark.sql(
    f"select min(log_position) from lakerep_staging.stg_source_log "
    f"where landing_batch > {after_batch} and landing_batch <= {up_to_batch}"
).first()[0]
condensed = {names[key] for key, r in registrations.items() if r.ccd_condensed}


def ccd_rows(name: str, registration, sql: str) -> str:
    image = "to_json(struct(" + ", ".join(f"`{c.name}`" for c in registration.columns) + "))"
    key = "to_json(struct(" + ", ".join(f"`{k}`" for k in ccd_unique_key[name]) + "))"
    return (
        f"select '{registration.source_owner}' as source_owner, '{registration.source_table}' as source_table, "
        f"{key} as ccd_key, IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION, "
        f"IBMSNAP_LOGMARKER, {image} as image from ({sql})"
    )


def reading(sql: str, relation: str, instead: str) -> str:
    """`sql` reading `instead` where it read `relation`; fails if it never read it."""
    if relation not in sql:
        raise RuntimeError(f"the compiled SQL does not read {relation}")
    return sql.replace(relation, instead)


def prepare_round() -> None:
    """Scratch tables as they stood before the cycle: the per-table copies and the one-table pair."""
    spark.sql("drop table if exists proto.cd_all")
    spark.sql("drop table if exists proto.ccd_all")
    spark.sql(
        "create table proto.cd_all using delta as "
        + one_cd_select.replace("{after}", "-1").replace("{up_to}", str(after_batch))
    )
    parts = []
    for key, registration in registrations.items():
        name = names[key]
        spark.sql(f"drop table if exists proto.cd_{name}")
        spark.sql(
            f"create table proto.cd_{name} using delta as select * from lakerep_capture.cd_{name} "
            f"where landing_batch <= {after_batch}"
        )
        spark.sql(f"drop table if exists proto.ccd_{name}")
        spark.sql(
            f"create table proto.ccd_{name} using delta as select * from lakerep_capture.ccd_{name} "
            f"version as of {ccd_versions[name]}"
        )
        parts.append(ccd_rows(name, registration, f"select * from proto.ccd_{name}"))
        # The view an analyst would read as cd_<name>: the one table's rows of this source, typed.
        prefix = registration.before_image_prefix
        prior = ", " + typed_columns(registration, "prior_row", prefix) if prefix else ""
        spark.sql(
            f"""create or replace temporary view one_cd_{name} as
            select IBMSNAP_UOWID, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION,
                {typed_columns(registration, "user_row")}{prior}, landing_batch
            from (
                select *, from_json(image, '{string_schema(registration)}') as user_row,
                    from_json(prior_image, '{string_schema(registration)}') as prior_row
                from proto.cd_all
                where {is_source(registration)}
            )"""
        )
    spark.sql("create table proto.ccd_all using delta as " + " union all ".join(parts))


def per_table_round() -> float:
    seconds = 0.0
    for name in names.values():
        seconds += timed(f"insert into proto.cd_{name} select * from ({cd_sql[name]})")
    for name in names.values():
        on = " and ".join(f"t.`{k}` <=> s.`{k}`" for k in ccd_unique_key[name])
        if name not in condensed:
            on += f" and t.IBMSNAP_INTENTSEQ >= '{floor}'"
        later = (
            " and (s.IBMSNAP_COMMITSEQ, s.IBMSNAP_INTENTSEQ) > (t.IBMSNAP_COMMITSEQ, t.IBMSNAP_INTENTSEQ)"
            if name in condensed
            else ""
        )
        sql = reading(ccd_sql[name], f"lakerep_capture.cd_{name}", f"proto.cd_{name}")
        seconds += timed(
            f"merge into proto.ccd_{name} t using ({sql}) s on {on} "
            f"when matched{later} then update set * when not matched then insert *"
        )
    return seconds


def one_table_round() -> float:
    seconds = timed(
        "insert into proto.cd_all "
        + one_cd_select.replace("{after}", str(after_batch)).replace("{up_to}", str(up_to_batch))
    )
    sources = [
        ccd_rows(names[key], r, reading(ccd_sql[names[key]], f"lakerep_capture.cd_{names[key]}", f"one_cd_{names[key]}"))
        for key, r in registrations.items()
    ]
    condensed_sources = " or ".join(
        f"(t.source_owner = '{r.source_owner}' and t.source_table = '{r.source_table}')"
        for key, r in registrations.items()
        if names[key] in condensed
    ) or "false"
    seconds += timed(
        "merge into proto.ccd_all t using (" + " union all ".join(sources) + ") s "
        "on t.source_owner = s.source_owner and t.source_table = s.source_table and t.ccd_key = s.ccd_key "
        f"and ({condensed_sources} or t.IBMSNAP_INTENTSEQ >= '{floor}') "
        "when matched and (s.IBMSNAP_COMMITSEQ, s.IBMSNAP_INTENTSEQ) > (t.IBMSNAP_COMMITSEQ, t.IBMSNAP_INTENTSEQ) "
        "then update set * when not matched then insert *"
    )
    return seconds


def rows_written() -> dict[str, tuple[int, int]]:
    """Per source: (CD rows, CCD rows) as the per-table side and the one-table side hold them."""
    held = {}
    for key, r in registrations.items():
        name = names[key]
        per_table = (
            spark.table(f"proto.cd_{name}").count(),
            spark.table(f"proto.ccd_{name}").count(),
        )
        one_table = (
            spark.sql(f"select count(*) from proto.cd_all where {is_source(r)}").first()[0],
            spark.sql(f"select count(*) from proto.ccd_all as t where {is_source(r).replace('source_', 't.source_')}").first()[0],
        )
        held[name] = (per_table, one_table)
    return held


figures = {"per table (4 CD appends, 4 CCD merges)": [], "one table (1 CD append, 1 CCD merge)": []}
for round_number in range(rounds + 1):  # the first round warms the JIT and is not counted
    prepare_round()
    for label, write in zip(figures, (per_table_round, one_table_round), strict=True):
        seconds = write()
        print(f"round {round_number}: {label}: {seconds:.2f} s")
        if round_number:
            figures[label].append(seconds)
    if round_number == 0:
        for name, (per_table, one_table) in rows_written().items():
            agree = "agree" if per_table == one_table else "DIFFER"
            print(f"rows held, {name}: per table CD {per_table[0]:,}, CCD {per_table[1]:,}; one table CD {one_table[0]:,}, CCD {one_table[1]:,}: {agree}")
for label, values in figures.items():
    print(f"{label}: median {statistics.median(values):.2f} s of {len(values)} rounds ({', '.join(f'{v:.2f}' for v in values)})")
with contextlib.suppress(Exception):
    spark.sql("drop database proto cascade")
