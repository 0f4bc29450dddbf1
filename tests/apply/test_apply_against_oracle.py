"""Apply (SPEC §5, §6) against the oracle, in one lake, one cycle after another: a refresh while
active whose unload window overlaps open transactions, an external refresh, mirroring, a cycle
cut off before its trail, an operational error after the window, pruning, a member left
behind RETENTION_LIMIT (refreshed, or stopped with a gap under DISABLE_REFRESH), a Capture
cold start past every member and past an external refresh window marked before it, and a newer
external refresh superseding that older, never applied one."""

from __future__ import annotations

import json

import pytest
from apply.apply_support import (
    MEMBERS,
    assert_target_equals_the_oracle,
    expected_history,
    insert_target_row,
    land_snapshot,
    mark_external_refresh,
    run_cycle,
    sql,
    synchpoints,
    target_history,
    trail,
    write_target,
)
from capture.ccd_support import global_synchpoint
from click.testing import CliRunner

from lakerep import apply_commands, cli, dbt, landing
from lakerep.lake import reset_lake
from lakerep.pipeline import HAS_SNAPSHOT, MATCHES_SNAPSHOT
from lakerep.scaffold import cd_model_name
from lakerep.summary import relation_name
from lakerep.workload.generator import Workload

pytestmark = pytest.mark.usefixtures("one_parse")  # the cycles of the module share one dbt parse

RECORDS_PER_BATCH = 600
CUSTOMERS, LINES, ORDERS, STOCK = (
    MEMBERS[name] for name in ("customers_copy", "order_lines_pit", "orders_history", "stock_copy")
)
SALES_COPIES = (CUSTOMERS, LINES)
LOWEST = "0" * 20


def land(spark, workload) -> None:
    landing.land_log_records(spark, workload.next_batch(RECORDS_PER_BATCH).records)


@pytest.fixture(scope="module")
def workload(spark):
    reset_lake()
    workload = Workload(seed=61)
    land(spark, workload)
    land(spark, workload)
    run_cycle()
    return workload


def straddling_window(workload, member) -> tuple[str, str, object]:
    """An unload window [start, end] that a transaction straddles (it changed the member's table
    before the start and committed inside the window, after the unload read that row), such
    that judging the window by log position loses its change for good."""
    history = workload.oracle.history(member.source)
    commits = sorted({change.commit_position for change in history})
    final = commits[-1]
    expected = workload.oracle.state_at(member.source, final)
    for change in reversed(history):
        inside = [position for position in commits if change.log_position < position < change.commit_position]
        later = [position for position in commits if position > change.commit_position]
        if not inside or not later:
            continue
        start, end = inside[0], later[min(len(later) - 1, 3)]
        snapshot = workload.snapshot(member.source, start, end)
        if replica_judged_by(workload, member, snapshot, start, final, by="log") != expected:
            return start, end, change
    raise AssertionError(f"no transaction straddles an unload of {member.source}")


def replica_judged_by(workload, member, snapshot, start: str, synchpoint: str, *, by: str) -> dict:
    """A plain-Python refresh while active: the snapshot, then the changes not discarded, each
    key ending as its last change says. by='commit' discards changes committed at or before the
    start (lakerep, SPEC §7); by='log' discards changes logged before it (the seed's rule)."""
    registration = member.registration
    keys = [registration.column_names.index(key) for key in registration.key_columns]
    rows = {
        tuple(row[registration.column_names[i]] for i in keys): tuple(row.values()) for row in snapshot.rows
    }
    kept = [
        change for change in workload.oracle.history(member.source, up_to=synchpoint)
        if (change.commit_position > start if by == "commit" else change.log_position >= start)
    ]  # fmt: skip
    for change in kept:
        if change.before_values is not None:
            rows.pop(change.before_key, None)
        if change.after_values is not None:
            rows[change.key] = change.after_values
    return {key: dict(zip(registration.column_names, row, strict=True)) for key, row in rows.items()}


def external_refresh(spark, workload, start: str, end: str) -> str:
    """Another tool unloads STOCK over [start, end] into its target, then marks the window; the
    marker's id."""
    write_target(spark, STOCK, workload.snapshot(STOCK.source, start, end).rows)
    mark_external_refresh(STOCK, start, end)
    return sql(spark, "select max_by(marker_id, marked_at) from lakerep_raw.refresh_markers")[0][0]


def stock_plan(spark):
    """STOCK's row in the last Apply cycle's plan."""
    return sql(
        spark,
        "select * from {apply_plan} where target_table = 'stock_copy' "
        "and apply_cycle = (select max(apply_cycle) from {apply_plan})",
    )[0]


def test_refresh_while_active_ends_equal_to_the_oracle(spark, workload):
    first = trail(spark)
    assert first["SALES"]["status"] == "WAITING" and first["STOCK"]["status"] == "GAP"
    assert synchpoints(spark) == dict.fromkeys(MEMBERS, LOWEST)

    # STOCK has DISABLE_REFRESH: another tool loads its target and the window is marked.
    stock_point = global_synchpoint(spark)
    external_refresh(spark, workload, stock_point, stock_point)
    land(spark, workload)
    start, end, straddler = straddling_window(workload, CUSTOMERS)
    snapshots = {member.target_table: land_snapshot(spark, workload, member, start, end)
                 for member in (CUSTOMERS, LINES, ORDERS)}  # fmt: skip
    run_cycle()

    synchpoint = global_synchpoint(spark)
    cycle = trail(spark)
    assert cycle["SALES"]["status"] == "APPLIED" and cycle["STOCK"]["status"] == "APPLIED"
    assert cycle["SALES"]["rows_reworked"] > 0, "the window's changes met rows the unload had read"
    assert cycle["SALES"]["exceptions"] == 0
    assert set(synchpoints(spark).values()) == {synchpoint}
    for member in (CUSTOMERS, LINES, STOCK):
        assert_target_equals_the_oracle(spark, workload, member, synchpoint)
    assert target_history(spark, ORDERS) == expected_history(
        workload, ORDERS, start, snapshots["orders_history"], synchpoint
    )

    # The straddling transaction: judged by log position (the seed's rule) its change is lost.
    by_commit = replica_judged_by(
        workload, CUSTOMERS, snapshots["customers_copy"], start, synchpoint, by="commit"
    )
    by_log = replica_judged_by(workload, CUSTOMERS, snapshots["customers_copy"], start, synchpoint, by="log")
    expected = workload.oracle.state_at(CUSTOMERS.source, synchpoint)
    assert by_commit == expected
    assert by_log != expected, f"judged by log position, {straddler} would be lost"
    refreshed = [row[0] for row in sql(spark, "select DESCRIPTION from {trace} where OPERATION = 'REFRESH'")]
    assert any("customers_copy: SYNCHPOINT 0" in text for text in refreshed), refreshed


def test_a_cycle_cut_off_before_its_trail_is_finished_by_the_next(spark, workload):
    land(spark, workload)
    run_cycle()
    # The process died after writing the targets, before the trail: take the cycle's commit
    # record (the trail's rows and the members' plans) away.
    last = sql(spark, "select max(apply_cycle) as cycle from {apply_trail}")[0]["cycle"]
    sql(spark, f"delete from {{apply_cycles}} where apply_cycle = {last}")
    land(spark, workload)
    run_cycle()
    synchpoint = global_synchpoint(spark)
    cycle = trail(spark)
    assert {row["status"] for row in cycle.values()} == {"APPLIED"}
    assert sum(row["exceptions"] for row in cycle.values()) == 0
    assert sum(row["rows_reworked"] for row in cycle.values()) > 0, "the cut-off cycle's changes met again"
    for member in (CUSTOMERS, LINES, STOCK):
        assert_target_equals_the_oracle(spark, workload, member, synchpoint)
    keys = sql(
        spark,
        "select count(*) as n, count(distinct IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION, order_id) as d "
        "from {orders_history}",
    )[0]
    assert keys["n"] == keys["d"]


def future_insert(workload, member, after: str):
    """A key the next batch inserts that no row holds at `after`."""
    held = workload.oracle.state_at(member.source, after)
    for change in workload.oracle.history(member.source, after=after):
        if change.operation == "I" and change.key not in held:
            return change
    raise AssertionError(f"the batch inserts no new key into {member.source}")


def test_an_insert_of_an_existing_key_stops_a_set_with_policy_stop_and_not_one_with_continue(spark, workload):
    before = global_synchpoint(spark)
    landing_batch = workload.next_batch(RECORDS_PER_BATCH)
    for member in (CUSTOMERS, STOCK):
        inserted = future_insert(workload, member, before)
        insert_target_row(spark, member, inserted.after)  # someone wrote the target
    landing.land_log_records(spark, landing_batch.records)
    run_cycle()

    cycle = trail(spark)
    assert cycle["SALES"]["status"] == "STOPPED"
    assert cycle["SALES"]["synchpoint"] == before
    assert cycle["STOCK"]["status"] == "APPLIED" and cycle["STOCK"]["exceptions"] == 1
    exceptions = sql(spark, "select * from {apply_exceptions}")
    assert {
        (row["target_table"], row["operational_error"], row["IBMSNAP_OPERATION"]) for row in exceptions
    } == {
        ("customers_copy", "insert of an existing key", "I"),
        ("stock_copy", "insert of an existing key", "I"),
    }
    assert synchpoints(spark)["customers_copy"] == before
    assert_target_equals_the_oracle(spark, workload, STOCK, global_synchpoint(spark))
    assert_target_equals_the_oracle(spark, workload, LINES, before)  # the stopped set did not move


def cd_rows(spark, member) -> set[tuple]:
    cd = relation_name(cd_model_name(member.registration))
    rows = spark.sql(f"select IBMSNAP_UOWID, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION from {cd}").collect()
    return {tuple(row) for row in rows}


def delta_tables(spark) -> dict[str, tuple[int, int]]:
    """Every Delta table of the lake (views left out): its data files and its latest version."""
    tables = {}
    for schema in (row[0] for row in spark.sql("show databases like 'lakerep*'").collect()):
        views = {row["viewName"] for row in spark.sql(f"show views in {schema}").collect()}
        for row in spark.sql(f"show tables in {schema}").collect():
            if row["tableName"] not in views and not row["isTemporary"]:
                name = f"{schema}.{row['tableName']}"
                files = spark.sql(f"describe detail {name}").collect()[0]["numFiles"]
                version = spark.sql(f"describe history {name} limit 1").collect()[0]["version"]
                tables[name] = (files, version)
    return tables


# What a prune cycle writes besides compacting: the prune's log and the deletes.
PRUNED = {
    "lakerep_capture.captured_log",
    "lakerep_control.capture_prune",
    "lakerep_raw.source_log",
    "lakerep_staging.int_log_records_judged",
}
# The members' changes, replaced whole each time they are written: they never grow, and the
# compaction leaves them alone.
REPLACED = {"lakerep_apply.apply_changes"}
LANDED_COLUMNS = (
    "log_position, uow_id, record_type, source_owner, source_table, log_timestamp, auth_id, auth_token, "
    "before_image, after_image"
)


def landed_log(spark) -> list[dict]:
    return [row.asDict() for row in spark.sql(
        f"select {LANDED_COLUMNS}, landing_batch from {landing.SOURCE_LOG_TABLE}"
    ).collect()]  # fmt: skip


def expected_landed_log(rows: list[dict], uow_limit: str) -> list[dict]:
    """What a prune leaves of the landed log, by its rule: the records of a UOW that ended (its
    first commit or rollback) at or below the limit go, but for the highest landing batch's."""
    ended: dict[str, str] = {}
    for row in sorted(rows, key=lambda r: r["log_position"].upper()):
        if row["record_type"] in ("C", "R"):
            ended.setdefault(row["uow_id"], row["log_position"].upper())
    highest = max(row["landing_batch"] for row in rows)
    pruned = {uow for uow, end in ended.items() if end <= uow_limit}
    return [row for row in rows if row["landing_batch"] == highest or row["uow_id"] not in pruned]


def judged_log(spark) -> list[dict]:
    return [row.asDict() for row in spark.sql(
        "select log_position, uow_id, record_type, normalized_position, quarantine_reason, landing_batch,"
        f" capture_cycle from {relation_name('int_log_records_judged')}"
    ).collect()]  # fmt: skip


def expected_judged_log(rows: list[dict], uow_limit: str) -> list[dict]:
    """What a prune leaves of the judged log, by its rule: a valid change (I, U, D) of a UOW whose
    valid end is at or below the limit goes, but for the highest landing batch's, the last
    judging cycle's and the valid record at the log's oldest position (the log's bounds stay).
    Every end and every quarantined record stays."""
    valid = [row for row in rows if row["quarantine_reason"] is None]
    ends = [row for row in valid if row["record_type"] in ("C", "R")]
    ended = {row["uow_id"] for row in ends if row["normalized_position"] <= uow_limit}
    highest_batch = max(row["landing_batch"] for row in rows)
    last_cycle = max(row["capture_cycle"] for row in rows)
    oldest = min(row["normalized_position"] for row in valid)

    def pruned(row: dict) -> bool:
        return (
            row["quarantine_reason"] is None
            and row["record_type"] in ("I", "U", "D")
            and row["uow_id"] in ended
            and row["landing_batch"] < highest_batch
            and row["capture_cycle"] < last_cycle
            and row["normalized_position"] != oldest
        )

    return [row for row in rows if not pruned(row)]


def test_pruning_deletes_exactly_the_rows_no_member_needs(spark, workload, tmp_path):
    land(spark, workload)
    run_cycle("--exclude", "path:models/apply")  # Capture moves on, Apply does not
    members_at = synchpoints(spark)
    uows = {row["IBMSNAP_UOWID"]: row["IBMSNAP_COMMITSEQ"] for row in sql(spark, "select * from {uow}")}
    rolled_back = {
        row[0] for row in spark.sql(f"select IBMSNAP_UOWID from {relation_name('uow_rollbacks')}").collect()
    }
    before = {member.source: cd_rows(spark, member) for member in MEMBERS.values()}
    landed_before = landed_log(spark)
    judged_before = judged_log(spark)
    tables_before = delta_tables(spark)

    run_cycle("--select", "capture_prune", "apply_trace", lakerep_prune=True, compact_min_files=3)

    for member in MEMBERS.values():
        limit = min(at for name, at in members_at.items() if MEMBERS[name].source == member.source)
        expected = {
            row for row in before[member.source]
            if row[0] not in rolled_back and not (row[0] in uows and uows[row[0]] <= limit)
        }  # fmt: skip
        assert cd_rows(spark, member) == expected, member.source
    uow_limit = min(members_at.values())
    left = {row["IBMSNAP_UOWID"] for row in sql(spark, "select * from {uow}")}
    assert left == {uow for uow, commit in uows.items() if commit > uow_limit}
    # Every batch landed was read by the cycle before: the landed log keeps what the rule keeps.
    kept = expected_landed_log(landed_before, uow_limit)
    assert 0 < len(kept) < len(landed_before)
    assert sorted(map(repr, landed_log(spark))) == sorted(map(repr, kept))
    # So does the judged log, which would grow for ever otherwise: its ends stay, which tell a
    # redelivered record of a pruned UOW (landing._not_pruned), and the CCD keeps each change.
    judged_kept = expected_judged_log(judged_before, uow_limit)
    assert 0 < len(judged_kept) < len(judged_before)
    assert sorted(map(repr, judged_log(spark))) == sorted(map(repr, judged_kept))
    logged = sql(spark, "select rows_deleted from {capture_prune} where pruned_kind = 'LANDED' "
                        "and pruned_at = (select max(pruned_at) from {capture_prune})")  # fmt: skip
    deleted = len(landed_before) - len(kept) + len(judged_before) - len(judged_kept)
    assert [row[0] for row in logged] == [deleted]
    # The log's bounds, which the restart decision checks warm restart points against, stay
    # those of everything landed: the prune keeps the judged log's oldest record and its last.
    positions = [row["log_position"].upper() for row in landed_before]
    [bounds] = spark.sql(f"select * from {relation_name('int_log_bounds')}").collect()
    assert (bounds["log_oldest_position"], bounds["log_end_position"]) == (min(positions), max(positions))
    # The CCDs keep the changes of the UOWs pruned: their data tests still pass (dbt's
    # relationships test to uow failed here, and would have stopped a session's next build);
    # so does validation's, which counts the landed records the prune left.
    uow_tests = dbt.invoke(
        [
            "test",
            "--select",
            "test_name:lakerep_commit_in_uow",
            "assert_validation_keeps_every_landed_record",
        ],
        check=False,
        quiet=True,
    )
    assert uow_tests.exit_code == dbt.EXIT_OK and uow_tests.result.results, [
        (result.node.name, str(result.status)) for result in uow_tests.result.results
    ]

    # The cycle compacted every table that grows by a write per cycle and held 3 files or more
    # into one, and gave the other tables no commit (the CD and UOW tables lost rows first).
    tables_after = delta_tables(spark)
    compacted = {
        name for name, (files, _) in tables_before.items() if files >= 3 and name not in PRUNED | REPLACED
    }  # fmt: skip
    assert compacted >= {
        "lakerep_control.capture_cycles",
        "lakerep_apply.apply_cycles",
    }
    for name in compacted:
        assert tables_after[name] == (1, tables_before[name][1] + 1), name
    for name in set(tables_before) - compacted - PRUNED:
        assert tables_after[name] == tables_before[name], name
    assert tables_after["lakerep_raw.source_log"][0] == 1  # its delete, then its compaction

    # Records delivered again after their landed copies were pruned have landed before: a
    # canonical file of them lands nothing, and is no error.
    pruned = [row for row in landed_before if row not in kept]
    again = tmp_path / "delivered-again.jsonl"
    again.write_text("".join(json.dumps({k: v for k, v in row.items() if k != "landing_batch"}) + "\n"
                             for row in pruned[:50]), encoding="utf-8")  # fmt: skip
    result = CliRunner().invoke(cli.main, ["land", "--format", "canonical", str(again)])
    assert result.exit_code == 0, result.output
    assert "landed nothing: every one of the log records had landed before" in result.output


def test_members_behind_retention_limit_are_refreshed_or_stopped_by_a_gap(spark, workload):
    behind = synchpoints(spark)
    run_cycle("--select", "capture_prune", "apply_trace", lakerep_prune=True, retention_limit=0)
    cd_old = {f"{row['SOURCE_OWNER']}.{row['SOURCE_TABLE']}": row["CD_OLD_SYNCHPOINT"]
              for row in sql(spark, "select * from {register} where GLOBAL_RECORD = 'N'")}  # fmt: skip
    assert all(cd_old[MEMBERS[name].source] > at for name, at in behind.items())

    synchpoint = global_synchpoint(spark)
    start = max(cd_old[member.source] for member in (CUSTOMERS, LINES, ORDERS))
    snapshots = {member.target_table: land_snapshot(spark, workload, member, start, synchpoint)
                 for member in (CUSTOMERS, LINES, ORDERS)}  # fmt: skip
    run_cycle()

    cycle = trail(spark)
    assert cycle["SALES"]["status"] == "APPLIED", cycle["SALES"]["description"]
    assert cycle["STOCK"]["status"] == "GAP"
    synchpoint = global_synchpoint(spark)
    for member in SALES_COPIES:
        assert_target_equals_the_oracle(spark, workload, member, synchpoint)
    assert target_history(spark, ORDERS) == expected_history(
        workload, ORDERS, start, snapshots["orders_history"], synchpoint
    )
    events = {row["OPERATION"]: row["DESCRIPTION"] for row in
              sql(spark, "select * from {trace} where CYCLE = (select max(apply_cycle) from {apply_trail}) "
                         "and OPERATION in ('REFRESH', 'GAP')")}  # fmt: skip
    assert "gap" in events["REFRESH"] and "DISABLE_REFRESH" in events["GAP"]

    # The gap stays until STOCK is refreshed by other means and the window marked.
    external_refresh(spark, workload, synchpoint, synchpoint)
    land(spark, workload)
    run_cycle()
    assert {row["status"] for row in trail(spark).values()} == {"APPLIED"}
    assert_target_equals_the_oracle(spark, workload, STOCK, global_synchpoint(spark))


def test_a_cold_start_past_the_members_is_a_gap_for_every_member_behind_it(spark, workload):
    before = global_synchpoint(spark)
    # Capture never reads this batch: the cold start skips it. Its transactions all end in it,
    # so none is in flight at the restart point (a cold start loses the changes of those).
    commits_before = set(workload.oracle.commit_positions())
    landing.land_log_records(spark, workload.next_batch(RECORDS_PER_BATCH, finish=True).records)
    skipped = [position for position in workload.oracle.commit_positions() if position not in commits_before]
    skipped_to = skipped[-1]
    # Another tool refreshes STOCK over a window the cold start then skips: no change of that
    # window will ever be in the CD table, so the unload cannot be made consistent.
    stale = external_refresh(spark, workload, skipped[len(skipped) // 2], skipped_to)
    current_restart = {"restart1": "CURRENT_RESTART", "restart2": "CURRENT_RESTART"}
    run_cycle(lakerep_start="cold", lakerep_restart_tokens={"special": current_restart})

    cd_old = {row["SOURCE_TABLE"]: row["CD_OLD_SYNCHPOINT"] for row in sql(spark, "select * from {register}")}
    assert all(cd_old[member.registration.source_table] >= skipped_to for member in MEMBERS.values())
    cycle = trail(spark)
    assert cycle["SALES"]["status"] == "WAITING" and "gap" in cycle["SALES"]["description"]
    assert cycle["SALES"]["synchpoint"] == before
    assert cycle["STOCK"]["status"] == "GAP"
    assert f"external refresh {stale} from" in stock_plan(spark)["reason"]
    assert "starts before CD_OLD_SYNCHPOINT" in stock_plan(spark)["reason"]

    land(spark, workload)
    start = max(cd_old[member.registration.source_table] for member in MEMBERS.values())
    synchpoint = workload.oracle.commit_positions()[-1]
    snapshots = {
        member.target_table: land_snapshot(spark, workload, member, start, synchpoint)
        for member in (CUSTOMERS, LINES, ORDERS)
    }
    refreshed = external_refresh(spark, workload, start, synchpoint)
    run_cycle()
    cycle = trail(spark)
    assert cycle["SALES"]["status"] == "APPLIED" and cycle["STOCK"]["status"] == "APPLIED"
    assert stock_plan(spark)["marker_id"] == refreshed
    assert global_synchpoint(spark) == synchpoint
    for member in (*SALES_COPIES, STOCK):
        assert_target_equals_the_oracle(spark, workload, member, synchpoint)
    history = expected_history(workload, ORDERS, start, snapshots["orders_history"], synchpoint)
    assert target_history(spark, ORDERS) == history


def test_an_older_external_refresh_never_applied_stays_superseded_by_a_newer_one(spark, workload):
    # The last test left STOCK's marker of the skipped window unconsumed, and a newer one applied.
    run_cycle("--select", "path:models/apply")  # an Apply cycle alone: nothing new to mirror
    assert {row["status"] for row in trail(spark).values()} == {"APPLIED"}
    assert stock_plan(spark)["action"] == "MIRROR"
    synchpoint = global_synchpoint(spark)
    for member in (*SALES_COPIES, STOCK):
        assert_target_equals_the_oracle(spark, workload, member, synchpoint)


def test_lakerep_diff_and_its_data_test_find_exactly_the_rows_that_differ(spark, workload):
    position = synchpoints(spark)["customers_copy"]
    for member in (CUSTOMERS, LINES, ORDERS):  # no snapshot of STOCK (DISABLE_REFRESH)
        snapshot = workload.snapshot(member.source, position, position)
        landing.land_snapshot_rows(spark, snapshot.to_landing_rows())
    assert not apply_commands.diff([m.target_table for m in SALES_COPIES]).differs
    with pytest.raises(dbt.OperationRejected, match="whose key updates are not captured as delete/insert"):
        apply_commands.diff([ORDERS.target_table])  # a key update moves a row: its history cannot say

    target = relation_name("customers_copy")
    gone, changed, doubled = sorted(workload.oracle.state_at(CUSTOMERS.source, position))[:3]
    spark.sql(f"delete from {target} where customer_id = '{gone[0]}'")
    spark.sql(f"update {target} set email = 'someone@else' where customer_id = '{changed[0]}'")
    columns = "name, email, credit_limit, created_on, updated_at"
    spark.sql(f"insert into {target} select 'C-NOT-IN-SOURCE', {columns} from {target} limit 1")
    spark.sql(f"insert into {target} select * from {target} where customer_id = '{doubled[0]}'")
    report = apply_commands.diff(["customers_copy"])
    counts = report.counts["customers_copy"]
    found = (counts["only_in_source"], counts["only_in_target"], counts["differing"], counts["duplicated"])
    assert found == (1, 1, 1, 1), report.lines
    assert any(f'"customer_id":"{changed[0]}"}}: email ' in line for line in report.lines), report.lines

    # Every member's data tests: the broken target fails with its 4 rows; the others pass. Stock's
    # without a snapshot and the orders history, which cannot be compared, compare nothing: their
    # second test says so with a warning.
    selector = f"test_name:{MATCHES_SNAPSHOT} test_name:{HAS_SNAPSHOT}"
    data_test = dbt.invoke(["test", "--select", selector], check=False, quiet=True)
    assert data_test.exit_code == dbt.EXIT_MODEL_ERRORS
    failures = {
        (result.node.test_metadata.name, result.node.attached_node.split(".")[-1]): (
            result.status,
            result.failures,
        )
        for result in data_test.result.results
        if result.node.resource_type == "test"
    }
    assert failures == {
        (MATCHES_SNAPSHOT, "customers_copy"): ("fail", 4),
        (MATCHES_SNAPSHOT, "order_lines_pit"): ("pass", 0),
        (MATCHES_SNAPSHOT, "orders_history"): ("pass", 0),
        (MATCHES_SNAPSHOT, "stock_copy"): ("pass", 0),
        (HAS_SNAPSHOT, "customers_copy"): ("pass", 0),
        (HAS_SNAPSHOT, "order_lines_pit"): ("pass", 0),
        (HAS_SNAPSHOT, "orders_history"): ("warn", 1),
        (HAS_SNAPSHOT, "stock_copy"): ("warn", 1),
    }

    differs = CliRunner().invoke(cli.main, ["diff", "--member", "customers_copy"])
    assert differs.exit_code == 1
    summary = "1 only in the source, 1 only in the target, 1 differing, 1 keys held more than once"
    assert summary in differs.output
    no_snapshot = CliRunner().invoke(cli.main, ["diff", "--member", "stock_copy"])
    assert no_snapshot.exit_code == cli.EXIT_USER_ERROR
    assert "no consistent snapshot of INVENTORY.STOCK" in no_snapshot.output


def test_a_plain_dbt_run_prunes_when_the_lakes_prune_is_due(spark, workload):
    """Var lakerep_prune left at its default ('due'): a run prunes once the lake's last prune is
    prune_interval seconds old, whichever run made it; never without Apply."""

    def latest_prune():
        return spark.sql(f"select max(pruned_at) from {relation_name('capture_prune')}").collect()[0][0]

    def plain_run(*args: str, prune_interval: int) -> None:
        dbt.invoke(["run", *args, "--vars", f"{{prune_interval: {prune_interval}}}"], quiet=True)

    land(spark, workload)
    before = latest_prune()
    plain_run("--exclude", "path:models/apply", prune_interval=0)  # Capture alone: Apply has not moved
    assert latest_prune() == before
    plain_run(prune_interval=3600)  # the lake pruned (or began) less than an hour ago
    assert latest_prune() == before

    plain_run(prune_interval=0)
    pruned_at = latest_prune()
    assert before is None or pruned_at > before
    logged = sql(spark, "select pruned_kind, source_owner, source_table from {capture_prune} "
                        "where pruned_at = (select max(pruned_at) from {capture_prune})")  # fmt: skip
    assert {(row[0], row[1], row[2]) for row in logged} == {
        ("UOW", None, None),
        ("LANDED", None, None),
        *{("CD", *member.source.split(".")) for member in MEMBERS.values()},
    }
