"""Bad landed log records through a full `lakerep run` cycle: each kind is quarantined with its
reason, the valid records of the same landing batch reach the CD tables and the targets, the
cycle's line gives the quarantine by reason (a landing batch of nothing but a bad unload
included), and the run ends with exit code 6 (a pipeline notices; nothing was lost or changed).

The valid records land in the shapes a real PostgreSQL log has (SPEC §2.1), and none of them is
quarantined: source times with a zone offset, before images as PostgreSQL's default replica
identity writes them (none for an update that keeps its key, the key columns only for a delete
or a key update), and the commit of a transaction that changed no table."""

from __future__ import annotations

import json
import re
from datetime import timedelta

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
from lakerep.workload.values import parse_timestamp

ORDER = {"order_id": 1, "customer_id": "C1", "order_date": "2026-01-01", "status": "NEW", "total": "10.00"}
HIGH = 0xF0000000000000000000  # above every generated position: these records collide with none


def bad(case: str, n: int, *, position: str | None = None, image: dict | str | None = None, **fields) -> dict:
    after = image if isinstance(image, str) else json.dumps(image if image is not None else ORDER)
    return {
        "log_position": position if position is not None else f"{HIGH + n:020X}",
        "uow_id": f"{HIGH + n:020X}",
        "record_type": "I",
        "source_owner": "SALES",
        "source_table": "ORDERS",
        "log_timestamp": "2026-01-01 00:00:00.000100",
        "auth_id": "TESTER",
        "auth_token": case,
        "before_image": None,
        "after_image": after,
        **fields,
    }


BAD_RECORDS = {
    "position_with_newline": (
        bad("position_with_newline", 1, position=f"{HIGH + 1:020X}\n"),
        "malformed_log_position",
    ),
    "position_with_quote": (
        bad("position_with_quote", 2, position=f"{HIGH:020X}"[:9] + "' OR '1'='1"),
        "malformed_log_position",
    ),
    "position_with_backslash": (
        bad("position_with_backslash", 3, position=f"{HIGH:020X}"[:19] + "\\"),
        "malformed_log_position",
    ),
    "position_with_backtick": (
        bad("position_with_backtick", 4, position=f"{HIGH:020X}"[:19] + "`"),
        "malformed_log_position",
    ),
    "value_wrong_type": (
        bad("value_wrong_type", 5, image={**ORDER, "total": "abc"}),
        "image_value_wrong_type",
    ),
    "date_as_a_number": (  # days since 1970, as Debezium writes a date: cast, it would be a year
        bad("date_as_a_number", 10, image={**ORDER, "order_date": 20789}),
        "image_value_wrong_type",
    ),
    "column_in_wrong_case": (
        bad("column_in_wrong_case", 6, image={**ORDER, "ORDER_ID": 2}),
        "image_unknown_column",
    ),
    "key_missing": (
        bad("key_missing", 7, image={k: v for k, v in ORDER.items() if k != "order_id"}),
        "image_missing_key",
    ),
    "timestamp_with_quote": (
        bad("timestamp_with_quote", 8, log_timestamp="2026-01-01' or 1=1"),
        "malformed_log_timestamp",
    ),
    "image_not_object": (bad("image_not_object", 9, image="[1]"), "image_not_json_object"),
}
COPIES = [name for name, member in MEMBERS.items() if member.target_structure != "ccd"]
# wal2json's form, ISO's, and two zones away from UTC, each with its hours ahead of UTC
OFFSETS = {"+00": 0, "Z": 0, "+05:30": 5.5, "-0800": -8}


def as_postgresql_writes_it(record: dict, n: int) -> dict:
    """A generated log record as PostgreSQL's logical decoding gives it under the default replica
    identity, with the source time in one of OFFSETS' forms (the same moment)."""
    moment = parse_timestamp(record["log_timestamp"])
    offset = list(OFFSETS)[n % len(OFFSETS)]
    local = (moment + timedelta(hours=OFFSETS[offset])).isoformat(sep="T" if offset == "Z" else " ")
    shaped = {**record, "log_timestamp": local + offset}
    registration = REGISTRATIONS.get(f"{record['source_owner']}.{record['source_table']}")
    if record["record_type"] in {"U", "D"} and registration is not None:
        keys = registration.key_columns
        before, after = (json.loads(record[image] or "null") for image in ("before_image", "after_image"))
        kept_key = after is not None and all(before[key] == after[key] for key in keys)
        shaped["before_image"] = None if kept_key else json.dumps({key: before[key] for key in keys})
    return shaped


def commit_without_row_changes(after_position: str) -> dict:
    """The commit of a transaction that changed no table (DDL, an empty transaction)."""
    position = f"{int(after_position, 16) + 1:020X}"
    record = dict.fromkeys(("source_owner", "source_table", "before_image", "after_image"))
    record.update(log_position=position, uow_id=position, record_type="C", auth_id="DDL", auth_token="ddl")
    return {**record, "log_timestamp": "2026-01-01 00:00:00.000100+00"}


REGISTRATIONS = load_registrations()


@pytest.fixture(scope="module")
def cycle(spark):
    workload = a_lake_with_every_target_copied(spark, records=2_000, seed=31)
    generated = workload.next_batch(1_000).records
    valid = [as_postgresql_writes_it(record, n) for n, record in enumerate(generated)]
    valid.append(commit_without_row_changes(max(record["log_position"] for record in generated)))
    batch, landed = landing.land_log_records(spark, [*valid, *(r for r, _ in BAD_RECORDS.values())])
    assert landed == len(valid) + len(BAD_RECORDS)
    # and a landing batch of nothing but a bad unload: reported all the same
    commits = workload.oracle.commit_positions()
    unload = workload.snapshot("SALES.ORDERS", commits[0], commits[-1]).to_landing_rows()[:2]
    landing.land_snapshot_rows(spark, [{**row, "unload_start_position": "'"} for row in unload])
    result = CliRunner().invoke(main, ["run", "--once"])
    quarantined = spark.sql(
        f"select * from {relation_name('source_log_quarantine')} where landing_batch = {batch}"
    ).collect()
    return {"workload": workload, "result": result, "quarantined": quarantined, "valid": valid}


def test_each_bad_record_is_quarantined_verbatim_with_its_reason(cycle):
    found = {row["auth_token"]: row for row in cycle["quarantined"]}
    assert {case: row["quarantine_reason"] for case, row in found.items()} == {
        case: reason for case, (_, reason) in BAD_RECORDS.items()
    }
    for case, (record, _) in BAD_RECORDS.items():
        assert found[case]["log_position"] == record["log_position"]
        assert found[case]["after_image"] == record["after_image"]


def test_the_cycle_line_gives_the_quarantine_and_the_run_exits_6(cycle):
    result = cycle["result"]
    assert result.exit_code == EXIT_QUARANTINED, result.output
    assert re.search(
        r"cycle \d+: .*; 10 records quarantined \(image_missing_key 1, image_not_json_object 1, "
        r"image_unknown_column 1, image_value_wrong_type 2, malformed_log_position 4, "
        r"malformed_log_timestamp 1\); 2 snapshot rows quarantined \(malformed_unload_position 2\)$",
        result.stdout,
        re.MULTILINE,
    ), result.stdout
    assert "quarantined landed input" in result.stderr


def test_the_valid_records_of_the_same_batch_reach_the_targets(spark, cycle):
    after = synchpoints(spark)
    for target in COPIES:
        assert after[target] == global_synchpoint(spark)
        assert_target_equals_the_oracle(spark, cycle["workload"], MEMBERS[target], after[target])
    # and as changes that fit the targets: an update without a before image taken for a key
    # update would end the same, through an operational error on the way
    assert {name: row["exceptions"] for name, row in trail(spark).items()} == {"SALES": 0, "STOCK": 0}


def test_source_times_with_an_offset_become_the_uows_logmarkers_in_utc(spark, cycle):
    logmarkers = dict(
        spark.sql(f"select IBMSNAP_UOWID, IBMSNAP_LOGMARKER from {relation_name('uow')}").collect()
    )
    commits = [record for record in cycle["valid"] if record["record_type"] == "C"]
    landed = {record["uow_id"]: record["log_timestamp"] for record in commits}
    checked = [uow for uow in cycle["workload"].oracle.committed_uows()
               if uow.uow_id in landed and uow.uow_id in logmarkers]  # fmt: skip
    forms = {offset for uow in checked for offset in OFFSETS if landed[uow.uow_id].endswith(offset)}
    assert forms == set(OFFSETS)
    for uow in checked:
        assert logmarkers[uow.uow_id] == uow.commit_timestamp, landed[uow.uow_id]
