"""Validation of landed log records (SPEC §2.1): each invalid kind is quarantined with its reason.

Two landing batches of hand-made records, each tagged with its case name in auth_token; the
second batch checks the rules that look back at records landed earlier.
"""

from __future__ import annotations

import json

import pytest

from lakerep import apply_commands, dbt, landing
from lakerep.lake import reset_lake
from lakerep.pipeline import APPLY_MODELS
from lakerep.summary import relation_name

pytestmark = pytest.mark.usefixtures("one_parse")  # the module's invocations share one dbt parse

ORDER = json.dumps(
    {
        "order_id": 1,
        "customer_id": "C1",
        "order_date": "2026-01-01",
        "status": "NEW",
        "total": "10.00",
        "note": None,
    }
)
ORDER_PAID = json.dumps(
    {
        "order_id": 1,
        "customer_id": "C1",
        "order_date": "2026-01-01",
        "status": "PAID",
        "total": "10.00",
        "note": 'it\'s "paid" — ok',
    }
)


def order_with(drop: tuple[str, ...] = (), **values) -> str:
    """The ORDER image with some values replaced or added, and some columns left out."""
    image = {**json.loads(ORDER), **values}
    return json.dumps({name: value for name, value in image.items() if name not in drop})


def position(n: int) -> str:
    return f"{n:020X}"


def record(case: str, n: int, uow: int, kind: str, **overrides) -> dict:
    is_change = kind in {"I", "U", "D"}
    base = {
        "log_position": position(n),
        "uow_id": position(uow),
        "record_type": kind,
        "source_owner": "SALES" if is_change else None,
        "source_table": "ORDERS" if is_change else None,
        "log_timestamp": "2026-01-01 00:00:00.000100",
        "auth_id": "TESTER",
        "auth_token": case,
        "before_image": ORDER if kind in {"U", "D"} else None,
        "after_image": (ORDER_PAID if kind == "U" else ORDER) if kind in {"I", "U"} else None,
    }
    base.update(overrides)
    return base


FIRST_BATCH = [
    record("valid_insert", 0x100, 0x100, "I"),
    record("valid_update", 0x110, 0x100, "U"),
    record("valid_commit", 0x120, 0x100, "C"),
    record("lowercase_position", 0x130, 0x130, "I", log_position="00000000000000000abc"),
    record("lowercase_position_commit", 0x140, 0x130, "C"),
    record("open_at_batch_end", 0x150, 0x150, "I"),
    record(
        "unregistered_table",
        0x160,
        0x160,
        "I",
        source_owner="AUDIT",
        source_table="EVENTS",
        after_image='{"event_id": 1, "message": "hi"}',
    ),
    record("unregistered_commit", 0x170, 0x160, "C"),
    record("unknown_record_type", 0x200, 0x200, "X"),
    record("null_record_type", 0x210, 0x200, "I", record_type=None),
    record("position_not_hex", 0x220, 0x200, "I", log_position="0000000000000000ZZZZ"),
    record("position_too_short", 0x230, 0x200, "I", log_position="1A2B"),
    record("position_missing", 0x240, 0x200, "I", log_position=None),
    record("missing_uow_id", 0x250, 0x200, "I", uow_id=" "),
    record("bad_timestamp", 0x260, 0x200, "I", log_timestamp="yesterday"),
    record("dml_without_table", 0x270, 0x200, "I", source_table=None),
    record("dml_without_owner", 0x280, 0x200, "D", source_owner=""),
    record("image_is_array", 0x290, 0x200, "I", after_image="[1, 2]"),
    record("image_is_scalar", 0x2A0, 0x200, "I", after_image='"order"'),
    record("image_is_garbage", 0x2B0, 0x200, "U", before_image="{not json"),
    record("update_without_before", 0x2C0, 0x200, "U", before_image=None),
    record("delete_without_before", 0x2C8, 0x200, "D", before_image=None),
    record("insert_without_after", 0x2D0, 0x200, "I", after_image=None),
    record("duplicate_first", 0x2E0, 0x2E0, "I"),
    record("duplicate_second", 0x2E0, 0x2F0, "I", after_image=ORDER_PAID),
    record("duplicate_first_commit", 0x300, 0x2E0, "C"),
    record("commit_without_row_changes", 0x310, 0x999, "C"),
    record("duplicate_third_invalid", 0x2E0, 0x2F0, "I", after_image="[]"),
    record("position_trailing_newline", 0x320, 0x200, "I", log_position=position(0x320) + "\n"),
    record("position_with_quote", 0x330, 0x200, "I", log_position=position(0x330)[:-11] + "' OR '1'='1"),
    record("position_with_backslash", 0x340, 0x200, "I", log_position=position(0x340)[:-1] + "\\"),
    record("position_with_backtick", 0x350, 0x200, "I", log_position=position(0x350)[:-1] + "`"),
    record("value_not_a_number", 0x360, 0x200, "I", after_image=order_with(total="abc")),
    record(
        "value_overflows_its_decimal", 0x370, 0x200, "I", after_image=order_with(total="1234567890123456")
    ),
    record("key_with_a_fraction", 0x380, 0x200, "I", after_image=order_with(order_id=1.5)),
    record("date_not_a_date", 0x390, 0x200, "I", after_image=order_with(order_date="2026-13-45")),
    record("before_value_wrong_type", 0x3A0, 0x200, "D", before_image=order_with(order_id="one")),
    record("column_in_wrong_case", 0x3B0, 0x200, "I", after_image=order_with(TOTAL="10.00", drop=("total",))),
    record("column_not_registered", 0x3C0, 0x200, "U", after_image=order_with(discount="1.00")),
    record(
        "column_names_to_escape",
        0x3D0,
        0x200,
        "I",
        after_image=order_with(**{"a'b": 1, "a\\b": 2, "a`b": 3, "a\nb": 4}),
    ),
    record("key_missing", 0x3E0, 0x200, "I", after_image=order_with(drop=("order_id",))),
    record("key_null", 0x3F0, 0x200, "U", after_image=order_with(order_id=None)),
    # Source times as real logs write them (wal2json, ISO), and two that are no time.
    record("time_with_hour_offset", 0x400, 0x200, "I", log_timestamp="2026-01-01 02:00:00.4537+02"),
    record("time_iso_utc", 0x410, 0x200, "I", log_timestamp="2026-01-01T00:00:00.000100Z"),
    record("time_with_minute_offset", 0x420, 0x200, "I", log_timestamp="2025-12-31 19:30:00-04:30"),
    record("time_date_only", 0x430, 0x200, "I", log_timestamp="2026-01-01"),
    record("time_offset_out_of_range", 0x440, 0x200, "I", log_timestamp="2026-01-01 00:00:00+25"),
]

SECOND_BATCH = [
    record("position_taken_earlier", 0x100, 0x500, "I"),
    record("second_commit_across_batches", 0x510, 0x100, "C"),
    record("commit_of_uow_open_at_batch_end", 0x520, 0x150, "C"),
    record("rollback_without_row_changes", 0x530, 0x531, "R"),
    record("change_after_its_commit", 0x570, 0x100, "I"),
    record("late_low_position", 0x90, 0x90, "I"),
    record("late_low_position_commit", 0x95, 0x90, "C"),
    record("two_ends_same_batch_first", 0x540, 0x541, "I"),
    record("two_ends_same_batch_commit", 0x550, 0x541, "C"),
    record("two_ends_same_batch_rollback", 0x560, 0x541, "R"),
]

EXPECTED_REASON = {
    "unknown_record_type": "unknown_record_type",
    "null_record_type": "unknown_record_type",
    "position_not_hex": "malformed_log_position",
    "position_too_short": "malformed_log_position",
    "position_missing": "malformed_log_position",
    "missing_uow_id": "missing_uow_id",
    "bad_timestamp": "malformed_log_timestamp",
    "dml_without_table": "dml_without_table",
    "dml_without_owner": "dml_without_table",
    "image_is_array": "image_not_json_object",
    "image_is_scalar": "image_not_json_object",
    "image_is_garbage": "image_not_json_object",
    "delete_without_before": "missing_image",
    "insert_without_after": "missing_image",
    "duplicate_second": "duplicate_log_position",
    "duplicate_third_invalid": "image_not_json_object",
    "position_trailing_newline": "malformed_log_position",
    "position_with_quote": "malformed_log_position",
    "position_with_backslash": "malformed_log_position",
    "position_with_backtick": "malformed_log_position",
    "value_not_a_number": "image_value_wrong_type",
    "value_overflows_its_decimal": "image_value_wrong_type",
    "key_with_a_fraction": "image_value_wrong_type",
    "date_not_a_date": "image_value_wrong_type",
    "before_value_wrong_type": "image_value_wrong_type",
    "column_in_wrong_case": "image_unknown_column",
    "column_not_registered": "image_unknown_column",
    "column_names_to_escape": "image_unknown_column",
    "key_missing": "image_missing_key",
    "key_null": "image_missing_key",
    "position_taken_earlier": "duplicate_log_position",
    "second_commit_across_batches": "uow_already_ended",
    "change_after_its_commit": "change_after_uow_end",
    "time_date_only": "malformed_log_timestamp",
    "time_offset_out_of_range": "malformed_log_timestamp",
    "two_ends_same_batch_rollback": "uow_already_ended",
}
ALL_CASES = [r["auth_token"] for r in FIRST_BATCH + SECOND_BATCH]
VALID_CASES = [case for case in ALL_CASES if case not in EXPECTED_REASON]


# the data tests, without the unit tests (tests/runner/test_demo.py runs every one)
STAGING_BUILD = [
    "build", "--select", "staging", "intermediate", "--exclude-resource-type", "unit_test"
]  # fmt: skip
# Capture's models without Apply's: the cycle completes, so the next build opens the next one and
# judges the batch landed since (a cycle judges the batches that had landed when it opened).
CAPTURE_RUN = ["run", "--exclude", APPLY_MODELS]


@pytest.fixture(scope="module")
def validated(spark):
    reset_lake()
    landing.land_log_records(spark, FIRST_BATCH)
    dbt.invoke(STAGING_BUILD, quiet=True)
    dbt.invoke(CAPTURE_RUN, quiet=True)
    landing.land_log_records(spark, SECOND_BATCH)
    dbt.invoke(STAGING_BUILD, quiet=True)
    quarantined = spark.sql(f"select * from {relation_name('source_log_quarantine')}").collect()
    staged = spark.sql(f"select * from {relation_name('int_log_records_valid')}").collect()
    return {
        "quarantined": {row["auth_token"]: row for row in quarantined},
        "staged": {row["auth_token"]: row for row in staged},
        "cases_landed_once_each": sorted(row["auth_token"] for row in [*quarantined, *staged]),
        "summary": spark.sql(
            f"select * from {relation_name('landing_batch_summary')} order by landing_batch"
        ).collect(),
    }


@pytest.mark.parametrize("case", sorted(EXPECTED_REASON))
def test_invalid_record_is_quarantined_with_its_reason(validated, case):
    assert case not in validated["staged"]
    assert validated["quarantined"][case]["quarantine_reason"] == EXPECTED_REASON[case]


@pytest.mark.parametrize("case", VALID_CASES)
def test_valid_record_is_staged(validated, case):
    assert case in validated["staged"]
    assert case not in validated["quarantined"]


def test_every_landed_record_is_staged_or_quarantined_exactly_once(validated):
    # Rows, not case names: a record staged twice, or both staged and quarantined, shows here.
    assert validated["cases_landed_once_each"] == sorted(ALL_CASES)


def test_quarantine_keeps_the_record_verbatim(validated):
    row = validated["quarantined"]["position_too_short"]
    assert row["log_position"] == "1A2B"
    assert row["after_image"] == ORDER
    assert validated["quarantined"]["image_is_garbage"]["before_image"] == "{not json"


def test_staged_record_is_typed_and_normalized(validated):
    row = validated["staged"]["lowercase_position"]
    assert row["log_position"] == "00000000000000000ABC"
    assert row["log_timestamp"].isoformat() == "2026-01-01T00:00:00.000100"


@pytest.mark.parametrize(
    ("case", "utc"),
    [
        ("time_with_hour_offset", "2026-01-01T00:00:00.453700"),
        ("time_iso_utc", "2026-01-01T00:00:00.000100"),
        ("time_with_minute_offset", "2026-01-01T00:00:00"),
    ],
)
def test_a_source_time_with_a_zone_offset_is_staged_in_utc(validated, case, utc):
    assert validated["staged"][case]["log_timestamp"].isoformat() == utc


def test_an_update_without_a_before_image_is_staged_as_it_came(validated):
    row = validated["staged"]["update_without_before"]
    assert row["before_image"] is None
    assert row["after_image"] == ORDER_PAID


def test_unregistered_table_is_kept_and_flagged(validated):
    assert validated["staged"]["unregistered_table"]["is_registered_table"] is False
    assert validated["staged"]["valid_insert"]["is_registered_table"] is True


def test_summary_counts_each_batch(validated):
    first, second = validated["summary"]
    first_quarantined = [c for c in EXPECTED_REASON if c in {r["auth_token"] for r in FIRST_BATCH}]
    assert first["records_landed"] == len(FIRST_BATCH)
    assert first["records_quarantined"] == len(first_quarantined)
    assert first["row_changes_unregistered"] == 1
    assert first["uows_committed"] == 5  # the commit of a UOW without row changes counts
    assert sum(first["quarantined_by_reason"].values()) == len(first_quarantined)
    assert first["quarantined_by_reason"]["malformed_log_position"] == 7
    assert second["records_landed"] == len(SECOND_BATCH)
    assert second["quarantined_by_reason"] == {
        "duplicate_log_position": 1,
        "uow_already_ended": 2,
        "change_after_uow_end": 1,
    }
    assert second["lowest_position"] == position(0x90)


def test_a_staging_build_leaves_the_replica_checks_nothing_to_compare(validated):
    # The build above selected the targets' diff tests (they read the staged snapshots) and
    # passed: no target is built yet. `lakerep diff` says so instead of comparing.
    not_built = "not built yet: customers_copy, apply_changes, apply_plan"
    with pytest.raises(dbt.OperationRejected, match=not_built):
        apply_commands.diff(["customers_copy"])
