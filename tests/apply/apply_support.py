"""Reading targets and Apply control tables back, and what the oracle says they should hold."""

from __future__ import annotations

from capture.ccd_support import expected_ccd_history, global_synchpoint, user_values

from lakerep import dbt, landing
from lakerep.lake import reset_lake
from lakerep.pipeline import land_refresh_snapshots, land_workload
from lakerep.subscriptions import Member, load_members
from lakerep.summary import relation_name

MEMBERS = {member.target_table: member for member in load_members()}


def sql(spark, text: str) -> list:
    for name in ("apply_plan", "apply_trail", "apply_cycles", "apply_exceptions", "pruning_control",
                 "register", "uow", "capture_trace", "capture_prune", "trace", *MEMBERS):  # fmt: skip
        text = text.replace("{" + name + "}", relation_name(name))
    return spark.sql(text).collect()


def run_cycle(*selectors: str, **variables) -> None:
    """One `dbt run` of the whole project (or of the selected models) with the given vars; it
    prunes only when they say so (lakerep_prune), never because the lake's prune fell due while
    the module ran."""
    args = ["run", *selectors]
    variables = {"lakerep_prune": False, **variables}
    args += ["--vars", repr(variables).replace("True", "true").replace("False", "false")]
    dbt.invoke(args)


def land_snapshot(spark, workload, member: Member, start: str, end: str):
    snapshot = workload.snapshot(member.source, start, end)
    landing.land_snapshot_rows(spark, snapshot.to_landing_rows())
    return snapshot


def trail(spark) -> dict[str, object]:
    """The last Apply cycle's trail rows by set name."""
    rows = sql(
        spark, "select * from {apply_trail} where apply_cycle = (select max(apply_cycle) from {apply_trail})"
    )
    return {row["set_name"]: row for row in rows}


def synchpoints(spark) -> dict[str, str]:
    return {row["TARGET_TABLE"]: row["SYNCHPOINT"] for row in sql(spark, "select * from {pruning_control}")}


def target_state(spark, member: Member) -> dict:
    registration = member.registration
    rows = sql(spark, f"select * from {{{member.target_table}}}")
    return {
        tuple(row[key] for key in registration.key_columns): user_values(row, registration) for row in rows
    }


def target_history(spark, member: Member) -> list[tuple]:
    rows = sql(spark, f"select * from {{{member.target_table}}}")
    found = [
        (row["IBMSNAP_COMMITSEQ"], row["IBMSNAP_INTENTSEQ"], row["IBMSNAP_OPERATION"],
         user_values(row, member.registration))
        for row in rows
    ]  # fmt: skip
    return sorted(found, key=_history_order)


def expected_history(workload, member: Member, refresh_start: str, snapshot, up_to: str) -> list[tuple]:
    """A CCD target refreshed from `snapshot`: its rows as inserts at the unload start, then the
    changes committed after the start."""
    loaded = [(refresh_start, refresh_start, "I", row) for row in snapshot.rows]
    changes = expected_ccd_history(workload.oracle, member.registration, up_to, after=refresh_start)
    return sorted(loaded + changes, key=_history_order)


def _history_order(row: tuple) -> tuple:
    return (row[0], row[1], row[2], repr(sorted(row[3].items())))


def assert_target_equals_the_oracle(spark, workload, member: Member, synchpoint: str) -> None:
    expected = workload.oracle.state_at(member.source, synchpoint)
    actual = target_state(spark, member)
    missing = {key: row for key, row in expected.items() if actual.get(key) != row}
    extra = {key: row for key, row in actual.items() if key not in expected}
    assert not missing and not extra, (
        f"{member.target_table} at {synchpoint}: {len(missing)} rows missing or different "
        f"(e.g. {list(missing.items())[:2]}), {len(extra)} rows extra (e.g. {list(extra.items())[:2]})"
    )


def write_target(spark, member: Member, rows) -> None:
    """Replace a copy target's rows (dicts of its columns), as a tool outside lakerep would (an
    external refresh)."""
    name = relation_name(member.target_table)
    frame = spark.createDataFrame(list(rows), schema=spark.table(name).schema)
    frame.write.format("delta").mode("overwrite").saveAsTable(name)


def insert_target_row(spark, member: Member, row: dict) -> None:
    name = relation_name(member.target_table)
    frame = spark.createDataFrame([row], schema=spark.table(name).schema)
    frame.write.format("delta").mode("append").saveAsTable(name)


def mark_external_refresh(member: Member, start: str, end: str) -> None:
    """What `lakerep mark-external-refresh --start --end` runs (its checks included)."""
    arguments = {"kind": "external", "target_table": member.target_table, "start_position": start,
                 "end_position": end, "marked_by": "tests"}  # fmt: skip
    dbt.run_operation("lakerep_mark_refresh", arguments)


def a_lake_with_every_target_copied(spark, records: int, seed: int):
    """A new lake that has landed a workload of `records` log records and copied every target:
    refreshed from snapshots, and STOCK (DISABLE_REFRESH, before images not split into
    delete/insert pairs by Capture) from another tool, so that every set applies the next batch.
    Returns the workload."""
    reset_lake()
    workload = land_workload(records=records, seed=seed, batch_records=records // 2).workload
    land_refresh_snapshots(workload)
    run_cycle()
    stock, start = MEMBERS["stock_copy"], global_synchpoint(spark)
    write_target(spark, stock, workload.snapshot(stock.source, start, start).rows)
    mark_external_refresh(stock, start, start)
    return workload
