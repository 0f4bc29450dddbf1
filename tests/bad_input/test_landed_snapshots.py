"""Bad rows of landed unloads (SPEC §2.5) through full cycles: each kind is quarantined with its
reason, a snapshot with one bad row is held back whole, nothing reaches Apply's SQL, and the
targets still receive their refresh and their changes once a valid snapshot lands.

The positions of a landed snapshot become Apply's fetch bound; before validation, a start of
`…' OR '1'='1` changed which changes were fetched, a lone quote failed every cycle, and a start
after its end held the target in a refresh window for ever.
"""

from __future__ import annotations

import json

import pytest
from apply.apply_support import MEMBERS, assert_target_equals_the_oracle, synchpoints

from lakerep import landing
from lakerep.lake import reset_lake
from lakerep.pipeline import land_next_batch, land_refresh_snapshots, land_workload, run_cycle
from lakerep.summary import relation_name

pytestmark = pytest.mark.usefixtures("one_parse")  # the module's invocations share one dbt parse

REFRESHED = [name for name, member in MEMBERS.items() if not member.registration.disable_refresh]
COPIES = [name for name in REFRESHED if MEMBERS[name].target_structure != "ccd"]


def bad_snapshots(workload, start: str, end: str) -> tuple[list[dict], dict[str, dict[str, int]]]:
    """Landing rows of SALES.ORDERS unloads, one snapshot per kind of bad input, and the
    quarantine reasons expected per snapshot: {snapshot_id: {reason: rows}}."""
    rows = workload.snapshot("SALES.ORDERS", start, end).to_landing_rows()[:3]
    assert len(rows) == 3

    def unload(case: str, *, start_position=start, end_position=end, images=None, ends=None):
        return [
            {
                **row,
                "snapshot_id": f"bad:{case}",
                "unload_start_position": start_position,
                "unload_end_position": (ends or {}).get(index, end_position),
                "row_image": (images or {}).get(index, row["row_image"]),
            }
            for index, row in enumerate(rows)
        ]

    wrong_total = json.dumps({**json.loads(rows[0]["row_image"]), "total": "abc"})
    cases = {
        "start_with_quote": (
            unload("start_with_quote", start_position=start[:-11] + "' OR '1'='1"),
            {"malformed_unload_position": 3},
        ),
        "lone_quote": (unload("lone_quote", start_position="'"), {"malformed_unload_position": 3}),
        "backslash": (
            unload("backslash", start_position=start[:-1] + "\\"),
            {"malformed_unload_position": 3},
        ),
        "backtick": (unload("backtick", end_position=end[:-1] + "`"), {"malformed_unload_position": 3}),
        "newline": (unload("newline", start_position=start + "\n"), {"malformed_unload_position": 3}),
        "not_hex": (unload("not_hex", start_position="Z" * 20), {"malformed_unload_position": 3}),
        "start_after_end": (
            unload("start_after_end", start_position=end, end_position=start),
            {"unload_start_after_end": 3},
        ),
        "image_not_object": (
            unload("image_not_object", images={0: "[1, 2]"}),
            {"image_not_json_object": 1, "snapshot_incomplete": 2},
        ),
        "image_missing_among_rows": (  # no image stands for an empty table: only as the one row
            unload("image_missing_among_rows", images={0: None}),
            {"image_not_json_object": 1, "snapshot_incomplete": 2},
        ),
        "value_wrong_type": (
            unload("value_wrong_type", images={0: wrong_total}),
            {"image_value_wrong_type": 1, "snapshot_incomplete": 2},
        ),
        "window_differs": (unload("window_differs", ends={1: start}), {"unload_window_differs": 3}),
    }
    landed = [row for snapshot_rows, _ in cases.values() for row in snapshot_rows]
    return landed, {f"bad:{case}": reasons for case, (_, reasons) in cases.items()}


@pytest.fixture(scope="module")
def lake(spark):
    reset_lake()
    workload = land_workload(records=3_000, seed=29, batch_records=1_500).workload
    commits = workload.oracle.commit_positions()
    assert commits[len(commits) // 2] < commits[-1]
    rows, expected = bad_snapshots(workload, commits[len(commits) // 2], commits[-1])
    landing.land_snapshot_rows(spark, rows)
    run_cycle(quiet=True, command="run")
    quarantined = spark.sql(f"select * from {relation_name('source_snapshot_quarantine')}").collect()
    staged = spark.sql(f"select count(*) from {relation_name('int_snapshot_rows_valid')}").collect()[0][0]
    before_refresh = {
        target: (synchpoint, spark.table(relation_name(target)).count())
        for target, synchpoint in synchpoints(spark).items()
    }
    land_refresh_snapshots(workload)
    land_next_batch(workload, 1_000)
    run_cycle(quiet=True, command="run")
    judged_version = _delta_version(spark, relation_name("int_snapshot_rows_judged"))
    land_next_batch(workload, 500)  # log records only: no unload to judge
    run_cycle(quiet=True, command="run")
    return {
        "workload": workload,
        "landed": rows,
        "expected": expected,
        "quarantined": quarantined,
        "staged": staged,
        "before_refresh": before_refresh,
        "judged_version": judged_version,
    }


def _delta_version(spark, table: str) -> int:
    return spark.sql(f"describe history {table} limit 1").collect()[0]["version"]


def test_each_bad_snapshot_is_quarantined_whole_with_its_reasons(lake):
    found: dict[str, dict[str, int]] = {}
    for row in lake["quarantined"]:
        reasons = found.setdefault(row["snapshot_id"], {})
        reasons[row["quarantine_reason"]] = reasons.get(row["quarantine_reason"], 0) + 1
    assert found == lake["expected"]
    assert lake["staged"] == 0


def test_quarantined_snapshot_rows_are_kept_verbatim(lake):
    landed = sorted(((r["snapshot_id"], r["unload_start_position"], r["unload_end_position"], r["row_image"])
                     for r in lake["landed"]), key=repr)  # fmt: skip
    kept = sorted(((r["snapshot_id"], r["unload_start_position"], r["unload_end_position"], r["row_image"])
                   for r in lake["quarantined"]), key=repr)  # fmt: skip
    assert kept == landed


def test_no_target_was_refreshed_from_a_bad_snapshot(lake):
    # pruning control holds the lowest position for a member that waits for its refresh
    assert {target: lake["before_refresh"][target] for target in REFRESHED} == {
        target: ("0" * 20, 0) for target in REFRESHED
    }


def test_targets_are_refreshed_and_receive_changes_once_a_valid_snapshot_lands(spark, lake):
    after = synchpoints(spark)
    for target in REFRESHED:
        assert after[target] > "0" * 20, f"{target} was not refreshed after a valid snapshot landed"
    for target in COPIES:  # a copy holds the source's rows at its synchpoint (a CCD its history)
        assert_target_equals_the_oracle(spark, lake["workload"], MEMBERS[target], after[target])


def test_each_landed_unload_is_judged_once_and_a_cycle_without_one_writes_no_verdict(spark, lake):
    # int_snapshot_rows_judged is appended in the cycle after an unload lands (issue 21), so
    # every landed row is there exactly once, valid or quarantined, and a cycle that landed only
    # log records leaves it untouched: no statement, no Delta commit.
    per_batch = """
        select landing_batch, count(*) as row_count from {table} group by landing_batch
    """
    landed = spark.sql(per_batch.format(table=landing.SOURCE_SNAPSHOT_TABLE)).collect()
    judged = spark.sql(per_batch.format(table=relation_name("int_snapshot_rows_judged"))).collect()
    assert sorted(map(tuple, judged)) == sorted(map(tuple, landed))
    assert len(landed) > 1  # the bad unloads, then the refresh snapshots
    table = relation_name("int_snapshot_rows_judged")
    assert _delta_version(spark, table) == lake["judged_version"]
