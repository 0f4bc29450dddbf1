"""A transaction moves whole or not at all (issue 62, item 3): a landed transaction that changed
two tables of one set, with one of its changes quarantined (a key missing from its image), is
held back whole. Capture writes none of its rows; the tables it touched are in a gap from its
commit on, so their set waits for a refresh (a stop under DISABLE_REFRESH) instead of applying
the rest of the transaction; the run ends with exit code 6 and `lakerep status` gives the
reason. The way out for landed files, a refresh from snapshots taken after the transaction,
brings every target to the oracle's state, the held transaction's changes included."""

from __future__ import annotations

import json

import pytest
from apply.apply_support import (
    MEMBERS,
    a_lake_with_every_target_copied,
    assert_target_equals_the_oracle,
    synchpoints,
    trail,
)
from capture.ccd_support import global_synchpoint
from click.testing import CliRunner

from lakerep import landing
from lakerep.cli import EXIT_QUARANTINED, main
from lakerep.registrations import load_registrations
from lakerep.summary import relation_name

pytestmark = pytest.mark.spark

REGISTRATIONS = load_registrations()
SALES = {name: member for name, member in MEMBERS.items() if member.set_name == "SALES"}
SALES_TABLES = {member.source for member in SALES.values()}
COPIES = [name for name, member in SALES.items() if member.target_structure != "ccd"]


def _table(record: dict) -> str:
    return f"{record['source_owner']}.{record['source_table']}"


def a_transaction_of_two_sales_tables(records: list[dict]) -> str:
    """A committed UOW of the batch whose changes touch two of the SALES set's tables and no
    other registered one, with an insert or update to spoil."""
    committed = {r["uow_id"] for r in records if r["record_type"] == "C"}
    tables: dict[str, set[str]] = {}
    for r in records:
        if r["record_type"] in {"I", "U", "D"} and _table(r) in REGISTRATIONS:
            tables.setdefault(r["uow_id"], set()).add(_table(r))
    spoilable = {r["uow_id"] for r in records if r["record_type"] in {"I", "U"}}
    for uow_id, touched in tables.items():
        if uow_id in committed & spoilable and len(touched) >= 2 and touched <= SALES_TABLES:
            return uow_id
    raise AssertionError("the workload wrote no committed transaction of two SALES tables")


def spoil_one_change(records: list[dict], uow_id: str) -> tuple[list[dict], dict]:
    """The records with one insert or update of the UOW missing its key in its after image."""
    spoiled = None
    out = []
    for r in records:
        if spoiled is None and r["uow_id"] == uow_id and r["record_type"] in {"I", "U"}:
            key = REGISTRATIONS[_table(r)].key_columns[0]
            image = {k: v for k, v in json.loads(r["after_image"]).items() if k != key}
            r = spoiled = {**r, "after_image": json.dumps(image)}
        out.append(r)
    return out, spoiled


@pytest.fixture(scope="module")
def held(spark):
    workload = a_lake_with_every_target_copied(spark, records=2_000, seed=37)
    before = synchpoints(spark)

    generated = workload.next_batch(1_000).records
    uow_id = a_transaction_of_two_sales_tables(generated)
    records, spoiled = spoil_one_change(generated, uow_id)
    commit = next(r["log_position"] for r in generated if r["uow_id"] == uow_id and r["record_type"] == "C")
    touched = {_table(r) for r in generated if r["uow_id"] == uow_id and r["record_type"] in {"I", "U", "D"}}
    touched &= set(REGISTRATIONS)
    landing.land_log_records(spark, records)
    result = CliRunner().invoke(main, ["run", "--once"])
    status = CliRunner().invoke(main, ["status"])
    return {
        "workload": workload, "uow_id": uow_id, "spoiled": spoiled, "commit": commit, "result": result,
        "status": status, "before": before, "after": synchpoints(spark), "trail": trail(spark),
        "touched": touched,
    }  # fmt: skip


def test_the_run_reports_the_quarantined_change_and_exits_6(held):
    result = held["result"]
    assert result.exit_code == EXIT_QUARANTINED, result.output
    assert "records quarantined (image_missing_key 1)" in result.stdout


def test_capture_writes_no_row_of_the_held_transaction(spark, held):
    rows = spark.sql(
        f"select * from {relation_name('captured_log')} where IBMSNAP_UOWID = '{held['uow_id']}'"
    ).collect()
    assert rows == []


def test_the_set_waits_and_applies_none_of_the_transaction(held):
    """Without the held transaction its tables' members cannot move past its commit: the set
    waits for a snapshot taken after it, and no member of it moved (its other changes are
    nowhere in a target)."""
    assert held["trail"]["SALES"]["status"] == "WAITING"
    assert {name: held["after"][name] for name in SALES} == {name: held["before"][name] for name in SALES}
    assert held["trail"]["STOCK"]["status"] == "APPLIED"


def test_status_says_why_the_members_wait(held):
    status = held["status"]
    assert f"CD_OLD_SYNCHPOINT {held['commit']}" in status.output, status.output
    assert "a transaction held back whole for a quarantined record" in status.output, status.output


def test_a_refresh_after_the_transaction_brings_every_target_to_the_source(spark, held):
    workload = held["workload"]
    end = workload.oracle.commit_positions()[-1]
    for source in sorted(held["touched"]):
        landing.land_snapshot_rows(spark, workload.snapshot(source, end, end).to_landing_rows())
    result = CliRunner().invoke(main, ["run", "--once"])
    assert result.exit_code == 0, result.output
    after = synchpoints(spark)
    assert trail(spark)["SALES"]["status"] == "APPLIED"
    for name in COPIES:
        assert after[name] == global_synchpoint(spark)
        assert_target_equals_the_oracle(spark, workload, MEMBERS[name], after[name])
