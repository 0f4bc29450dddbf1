"""A registered table, or a member, with nothing in the cycle writes nothing (issues 21 and 61):
its target gets no Delta commit (its CD and CCD tables are views over tables every source
shares), and a cycle with nothing landed commits to no table at all, while the members with
changes, including one whose UOW began in the previous cycle and commits in this one, get them.

A generated history (every table; the SALES members refreshed, the STOCK set stopped with a gap:
INVENTORY.STOCK has DISABLE_REFRESH), then cycles of hand-made records on SALES.ORDERS only: the
first lands a UOW's insert without its commit, the second nothing (the UOW stays open: a UOW
whose commit the cycle does not read keeps no table in it), the third a whole UOW of the
unregistered table AUDIT.EVENTS only (the log read moves past the open UOW's first change, and
ORDERS' RESTART1 must stay at it), the fourth its commit and a whole second UOW.
SALES.CUSTOMERS, SALES.ORDER_LINES and INVENTORY.STOCK have nothing in any of them.
"""

from __future__ import annotations

import json

import pytest
from apply.apply_support import MEMBERS, assert_target_equals_the_oracle, sql, target_history, trail

from lakerep import dbt, landing
from lakerep.lake import reset_lake
from lakerep.pipeline import land_refresh_snapshots, land_workload
from lakerep.pipeline import run_cycle as pipeline_cycle
from lakerep.scaffold import ccd_model_name
from lakerep.summary import relation_name
from lakerep.workload.generator import UNREGISTERED_TABLE

pytestmark = pytest.mark.usefixtures("one_parse")  # the cycles of the module share one dbt parse

CUSTOMERS, LINES, ORDERS, STOCK = (
    MEMBERS[name] for name in ("customers_copy", "order_lines_pit", "orders_history", "stock_copy")
)
UNTOUCHED = (CUSTOMERS, LINES, STOCK)
OPEN_ORDER_ID, NEXT_ORDER_ID = 900_000_001, 900_000_002
LAST_TIME = "2026-01-01 06:00:00.000000"  # the generated history starts at 2026-01-01 00:00


# Every table a cycle can write, but the targets: the SPEC's per-source tables are views over them.
SHARED_TABLES = (
    "int_log_records_judged",
    "int_snapshot_rows_judged",
    "captured_log",
    "ccd_rows",
    "capture_cycles",
    "restart_decisions",
    "capture_prune",
    "apply_changes",
    "apply_cycles",
    "apply_exceptions",
)


def member_models(*members) -> list[str]:
    return [member.target_table for member in members]


def untouched_models() -> list[str]:
    return member_models(*UNTOUCHED)


def every_table() -> list[str]:
    return [*SHARED_TABLES, *member_models(*MEMBERS.values())]


def delta_versions(spark, model: str) -> int:
    return len(spark.sql(f"describe history {relation_name(model)}").collect())


def position(n: int) -> str:
    return f"{n:020X}"


def an_image(spark, member, **changes) -> str:
    """A row image of the member's source as the log carries it (a landed one, changed)."""
    registration = member.registration
    image = spark.sql(
        f"select after_image from {landing.SOURCE_LOG_TABLE} "
        f"where source_owner = '{registration.source_owner}' "
        f"and source_table = '{registration.source_table}' and record_type = 'I' limit 1"
    ).collect()[0][0]
    row = json.loads(image)
    row.update(changes)
    return json.dumps(row)


def log_record(n: int, uow: int, kind: str, member=None, after_image: str | None = None, table=None) -> dict:
    """A landing-format log record, a little after the history in source time (each cycle warm
    starts, and LAG_LIMIT measures the restart point against the log's end). Its table is the
    member's source, else `table` (owner, name), else none (a commit)."""
    registration = member.registration if member is not None else None
    owner, name = (
        (registration.source_owner, registration.source_table) if registration else (table or (None, None))
    )
    return {
        "log_position": position(n),
        "uow_id": position(uow),
        "record_type": kind,
        "source_owner": owner,
        "source_table": name,
        "log_timestamp": LAST_TIME,
        "auth_id": "TESTER",
        "auth_token": "untouched",
        "before_image": None,
        "after_image": after_image,
    }


# The module's cycles are one run's, as a session's are: a run's first cycle writes its restart
# decisions (ADR 0011), whatever it read.
RUN_VARS = {"lakerep_run_id": "untouched"}


def cycle() -> None:
    pipeline_cycle(quiet=True, command="run", run_vars=RUN_VARS)


def restart1_by_table(spark) -> dict[str, str]:
    state = relation_name("capture_state")
    rows = spark.sql(f"select source_owner, source_table, restart1 from {state}").collect()
    return {f"{owner}.{table}": restart1 for owner, table, restart1 in rows}


@pytest.fixture(scope="module")
def lake(spark):
    reset_lake()
    landed = land_workload(records=600, seed=37, batch_records=600)
    workload = landed.workload
    landing.land_log_records(spark, workload.close_open_transactions().records)
    land_refresh_snapshots(workload)
    cycle()
    assert {name: row["status"] for name, row in trail(spark).items()} == {"SALES": "APPLIED", "STOCK": "GAP"}
    before = {model: delta_versions(spark, model) for model in untouched_models()}

    end = int(workload.log_end_position, 16)
    open_uow, next_uow, audit_uow = end + 0x100, end + 0x200, end + 0x300
    open_order = an_image(spark, ORDERS, order_id=OPEN_ORDER_ID)
    landing.land_log_records(spark, [log_record(end + 0x10, open_uow, "I", ORDERS, open_order)])
    cycle()
    open_cycle = {model: delta_versions(spark, model) for model in every_table()}
    cycle()  # nothing landed: the UOW is still open
    idle_cycle = {model: delta_versions(spark, model) for model in every_table()}
    audit_table = (UNREGISTERED_TABLE.source_owner, UNREGISTERED_TABLE.source_table)
    audit_event = json.dumps({"event_id": 900_000_003, "message": "a UOW of a table not registered"})
    landing.land_log_records(
        spark,
        [
            log_record(end + 0x14, audit_uow, "I", after_image=audit_event, table=audit_table),
            log_record(end + 0x18, audit_uow, "C"),
        ],
    )
    cycle()  # a UOW of the unregistered table only: the log read moves on, the UOW stays open
    unregistered_cycle = {model: delta_versions(spark, model) for model in member_models(ORDERS)}
    orders_while_open = open_cycle[ORDERS.target_table]
    restart1_while_open = restart1_by_table(spark)
    landing.land_log_records(
        spark,
        [
            log_record(end + 0x20, next_uow, "I", ORDERS, an_image(spark, ORDERS, order_id=NEXT_ORDER_ID)),
            log_record(end + 0x30, next_uow, "C"),
            log_record(end + 0x40, open_uow, "C"),
        ],
    )
    cycle()
    commits = {NEXT_ORDER_ID: position(end + 0x30), OPEN_ORDER_ID: position(end + 0x40)}
    return {
        "workload": workload,
        "before": before,
        "commits": commits,
        "open_first_change": position(end + 0x10),
        "open_cycle": open_cycle,
        "idle_cycle": idle_cycle,
        "unregistered_cycle": unregistered_cycle,
        "orders_while_open": orders_while_open,
        "restart1_while_open": restart1_while_open,
        "restart1_after": restart1_by_table(spark),
    }


def test_tables_and_members_without_changes_get_no_delta_commit(spark, lake):
    after = {model: delta_versions(spark, model) for model in untouched_models()}
    assert after == lake["before"]


def test_a_cycle_with_nothing_landed_commits_to_no_table(spark, lake):
    assert lake["idle_cycle"] == lake["open_cycle"]


def test_a_uow_still_open_keeps_its_target_out_of_a_cycle_that_reads_no_commit_of_it(spark, lake):
    assert lake["unregistered_cycle"] == {ORDERS.target_table: lake["orders_while_open"]}


def test_restart1_stays_at_the_first_change_of_a_uow_open_on_a_table_out_of_the_cycle(lake):
    """SPEC §3: RESTART1 is the first change to the source of the oldest UOW still in flight,
    else the highest position read. The cycle that read only the unregistered UOW ended past the
    open UOW's first change to ORDERS; the other tables had nothing in flight."""
    orders = f"{ORDERS.registration.source_owner}.{ORDERS.registration.source_table}"
    while_open = lake["restart1_while_open"]
    highest_read = position(int(lake["open_first_change"], 16) + 0x08)
    assert while_open == {
        table: lake["open_first_change"] if table == orders else highest_read for table in while_open
    }
    after = lake["restart1_after"]
    assert set(after.values()) == {lake["commits"][OPEN_ORDER_ID]}


def test_a_uow_begun_in_the_previous_cycle_reaches_the_ccd_and_its_target(spark, lake):
    commits = lake["commits"]
    ccd = relation_name(ccd_model_name(ORDERS.registration))
    rows = spark.sql(
        f"select order_id, IBMSNAP_COMMITSEQ from {ccd} where order_id in ({OPEN_ORDER_ID}, {NEXT_ORDER_ID})"
    ).collect()
    assert dict(rows) == commits
    history = target_history(spark, ORDERS)
    assert {row[3]["order_id"]: row[0] for row in history if row[3]["order_id"] in commits} == commits
    trail_rows = trail(spark)
    assert {name: (row["status"], row["rows_inserted"]) for name, row in trail_rows.items()} == {
        "SALES": ("APPLIED", 2),
        "STOCK": ("GAP", 0),
    }
    synchpoint = sql(spark, "select SYNCHPOINT from {register} where GLOBAL_RECORD = 'Y'")[0][0]
    assert synchpoint == commits[OPEN_ORDER_ID]


def test_the_untouched_targets_still_equal_the_oracle(spark, lake):
    assert_the_untouched_targets_equal_the_oracle(spark, lake["workload"])


def assert_the_untouched_targets_equal_the_oracle(spark, workload) -> None:
    last_commit = max(workload.oracle.commit_positions())
    for member in (CUSTOMERS, LINES):
        assert_target_equals_the_oracle(spark, workload, member, last_commit)


def test_a_full_refresh_typed_by_habit_rebuilds_no_table(spark, lake):
    """Issue 62, item 11: no table of lakerep can be rebuilt from its inputs (the landing is
    pruned; the cycles, verdicts and replicas are the session's history), so `--full-refresh`
    rebuilds none: it runs as a plain cycle, which with nothing landed changes no row."""

    def row_counts() -> dict[str, int]:
        return {
            model: spark.sql(f"select count(*) from {relation_name(model)}").collect()[0][0]
            for model in every_table()
        }

    before = row_counts()
    dbt.invoke(["run", "--full-refresh", "--vars", json.dumps(RUN_VARS)], quiet=True)
    assert row_counts() == before
    assert_the_untouched_targets_equal_the_oracle(spark, lake["workload"])
