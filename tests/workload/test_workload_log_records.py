"""The landed log records: format, determinism, and the features every workload must hold."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from datetime import date, datetime
from decimal import Decimal
from itertools import pairwise

import pytest
from workload_support import BATCH_RECORDS, BATCHES, Images, Run, feature_counts, generate, table_of, uows

from lakerep import PROJECT_DIR
from lakerep.registrations import Registration
from lakerep.workload import RECORD_FIELDS, UNREGISTERED_TABLE, Workload
from lakerep.workload.values import parse_type

HEX20 = re.compile(r"[0-9A-F]{20}")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}")


def test_every_record_has_exactly_the_contract_fields_as_text(log_run: Run) -> None:
    for record in log_run.records:
        assert tuple(record) == RECORD_FIELDS
        assert all(value is None or isinstance(value, str) for value in record.values())


def test_positions_are_unique_hex_and_advance_by_one_step_per_log_record(log_run: Run) -> None:
    positions = [record["log_position"] for record in log_run.records]
    assert all(HEX20.fullmatch(position) for position in positions)
    assert positions == sorted(positions)
    assert len(set(positions)) == len(positions)
    bases = sorted({int(position, 16) // 0x10 for position in positions})
    # One base per log record written, none skipped: exactly the records asked for.
    assert len(bases) == BATCH_RECORDS * BATCHES
    assert bases[-1] - bases[0] + 1 == len(bases)
    assert log_run.batches[-1].log_end_position == log_run.workload.log_end_position == max(positions)


def test_multi_row_inserts_number_their_rows_in_the_low_digit(log_run: Run) -> None:
    by_base: dict[int, list[dict]] = {}
    for record in log_run.records:
        by_base.setdefault(int(record["log_position"], 16) // 0x10, []).append(record)
    multi = [group for group in by_base.values() if len(group) > 1]
    assert len(multi) >= 10
    for group in by_base.values():
        offsets = [int(record["log_position"], 16) % 0x10 for record in group]
        assert offsets == list(range(len(group)))
        assert {(r["record_type"], r["uow_id"], table_of(r), r["log_timestamp"]) for r in group} == {
            (group[0]["record_type"], group[0]["uow_id"], table_of(group[0]), group[0]["log_timestamp"])
        }
        if len(group) > 1:
            assert group[0]["record_type"] == "I"
            assert len(group) <= 16


def test_record_types_carry_the_right_parts(log_run: Run, registrations: dict[str, Registration]) -> None:
    images = Images(registrations)
    for record in log_run.records:
        kind = record["record_type"]
        assert kind in ("I", "U", "D", "C", "R")
        if kind in ("C", "R"):
            assert record["source_owner"] is None and record["source_table"] is None
            assert record["before_image"] is None and record["after_image"] is None
            continue
        assert table_of(record) in images.codecs
        assert (record["before_image"] is not None) == (kind in ("U", "D"))
        assert (record["after_image"] is not None) == (kind in ("U", "I"))
        for text in (record["before_image"], record["after_image"]):
            if text is not None:
                # Full row images, columns in declared order (decode checks order and types).
                row = images.codecs[table_of(record)].decode(text)
                assert all(row[column] is not None for column in images.keys[table_of(record)])
                assert text == json.dumps(json.loads(text), ensure_ascii=False)


def test_uow_ids_are_the_first_position_and_auth_is_constant_per_uow(log_run: Run) -> None:
    for uow_id, uow in uows(log_run.records).items():
        assert uow.records[0]["log_position"] == uow_id
        assert len({(record["auth_id"], record["auth_token"]) for record in uow.records}) == 1
        assert uow.records[0]["auth_id"] and uow.records[0]["auth_token"]
        ends = [record for record in uow.records if record["record_type"] in ("C", "R")]
        assert len(ends) <= 1
        if ends:
            assert uow.records[-1] is ends[0]
    assert "O'CONNOR" in {record["auth_id"] for record in log_run.records}


def test_timestamps_start_at_the_base_and_never_go_back(log_run: Run) -> None:
    stamps = [record["log_timestamp"] for record in log_run.records]
    assert all(TIMESTAMP.fullmatch(stamp) for stamp in stamps)
    assert stamps == sorted(stamps)
    assert stamps[0] >= "2026-01-01 00:00:00.000000"
    assert stamps[-1] < "2026-01-02 00:00:00.000000"
    assert len(set(stamps)) < len(stamps)  # equal neighbours occur, and are allowed


def test_same_seed_same_log_other_seed_other_log() -> None:
    first, again, other = generate("commit"), generate("commit"), generate("commit", seed=7)
    assert [batch.records for batch in first.batches] == [batch.records for batch in again.batches]
    assert first.records != other.records
    assert generate("log").records == generate("log").records


def test_one_commit_per_commit_record_and_varied_transaction_sizes(finished_log_run: Run) -> None:
    found = uows(finished_log_run.records)
    outcomes = Counter(uow.end["record_type"] for uow in found.values() if uow.end)
    assert outcomes["C"] > 0
    assert 0.01 < outcomes["R"] / (outcomes["C"] + outcomes["R"]) < 0.12
    sizes = Counter(len({int(r["log_position"], 16) // 0x10 for r in uow.changes}) for uow in found.values())
    assert sizes[1] >= 50  # many single-operation transactions
    assert max(sizes) >= 16  # and a long tail
    assert max(sizes) <= 50


def test_transactions_interleave_and_some_run_long(log_run: Run) -> None:
    found = uows(log_run.records)
    open_now, most_open = 0, 0
    for record in log_run.records:
        if record["log_position"] == record["uow_id"]:
            open_now += 1
        if record["record_type"] in ("C", "R"):
            open_now -= 1
        most_open = max(most_open, open_now)
    assert most_open >= 6
    commits = sorted(uow.end_position for uow in found.values() if uow.end and uow.end["record_type"] == "C")
    spans = [
        sum(1 for commit in commits if uow.uow_id < commit < uow.end_position)
        for uow in found.values()
        if uow.end is not None
    ]
    assert max(spans) >= 100  # a long-running UOW outlives a hundred commits of others


def test_row_locks_keep_open_transactions_apart(
    finished_log_run: Run, registrations: dict[str, Registration]
) -> None:
    images = Images(registrations)
    found = uows(finished_log_run.records)
    # Per key: (first touch, end of the touching UOW, UOW); no two UOWs may overlap on one key.
    holds: dict[tuple, dict[str, tuple[str, str]]] = {}
    for uow in found.values():
        assert uow.end_position is not None
        for record in uow.changes:
            for key in images.touched_keys(record):
                per_uow = holds.setdefault((table_of(record), key), {})
                per_uow.setdefault(uow.uow_id, (record["log_position"], uow.end_position))
    shared = 0
    for per_uow in holds.values():
        intervals = sorted(per_uow.values())
        shared += len(intervals) > 1
        for (_, end), (start, _) in pairwise(intervals):
            assert end < start
    assert shared > 100  # keys do pass from one transaction to the next


def test_key_changing_updates_occur(log_run: Run, registrations: dict[str, Registration]) -> None:
    images = Images(registrations)
    moved = Counter()
    for record in log_run.records:
        if record["record_type"] == "U" and table_of(record) in registrations:
            before, after = images.before(record), images.after(record)
            if images.key(record, before) != images.key(record, after):
                moved[table_of(record)] += 1
    assert sorted(moved) == sorted(registrations)
    committed_moves = [
        change
        for table in registrations
        for change in log_run.workload.oracle.history(table)
        if change.operation == "U" and change.before_key != change.key
    ]
    assert len(committed_moves) >= 20


def test_deleted_keys_are_inserted_again_in_the_same_and_in_later_transactions(log_run: Run) -> None:
    oracle = log_run.workload.oracle
    same_uow = later_uow = 0
    for table in oracle.tables:
        deleted_by: dict[tuple, str] = {}
        for change in oracle.history(table):
            if change.operation == "D" or (change.operation == "U" and change.before_key != change.key):
                deleted_by[change.before_key] = change.uow_id
            if change.operation in ("I", "U") and change.key in deleted_by:
                if deleted_by.pop(change.key) == change.uow_id:
                    same_uow += 1
                else:
                    later_uow += 1
    assert same_uow >= 3
    assert later_uow >= 10


def test_every_non_key_column_is_sometimes_null(log_run: Run, registrations: dict[str, Registration]) -> None:
    images = Images(registrations)
    seen_null: set[tuple[str, str]] = set()
    for record in log_run.records:
        if record["after_image"] and table_of(record) in registrations:
            for column, value in images.after(record).items():
                if value is None:
                    seen_null.add((table_of(record), column))
    expected = {
        (name, column.name)
        for name, registration in registrations.items()
        for column in registration.columns
        if column.name not in registration.key_columns
    }
    assert seen_null == expected
    assert {parse_type(column.data_type).kind for _, column in _columns(registrations, expected)} == {
        "integer",
        "decimal",
        "string",
        "date",
        "timestamp",
    }


def _columns(registrations: dict[str, Registration], names: set[tuple[str, str]]):
    for table, registration in registrations.items():
        for column in registration.columns:
            if (table, column.name) in names:
                yield table, column


def test_awkward_strings_and_typed_values_occur(log_run: Run, registrations: dict[str, Registration]) -> None:
    images = Images(registrations)
    strings: set[str] = set()
    key_strings: set[str] = set()
    decimal_texts: list[tuple[str, int]] = []
    kinds: Counter = Counter()
    for record in log_run.records:
        table = table_of(record)
        if table not in registrations or record["after_image"] is None:
            continue
        registration = registrations[table]
        raw = json.loads(record["after_image"])
        for column, value in images.after(record).items():
            kinds[type(value)] += 1
            if isinstance(value, str):
                (key_strings if column in registration.key_columns else strings).add(value)
        for column in registration.columns:
            sql_type = parse_type(column.data_type)
            if sql_type.kind == "decimal" and raw[column.name] is not None:
                decimal_texts.append((raw[column.name], sql_type.scale))
    for awkward in ('O\'Brien "Bob"', "Zoë Ünal", "東京", "😀", "back\\slash", ""):
        assert awkward in strings
    assert any("'" in key or "東京" in key or "🚀" in key for key in key_strings)
    assert {int, str, Decimal, date, datetime} <= set(kinds)
    assert all(len(text.rpartition(".")[2]) == scale for text, scale in decimal_texts)
    assert any(text.endswith("0") for text, _ in decimal_texts)  # trailing zeros are kept
    assert any(text.startswith("-") for text, _ in decimal_texts)


def test_the_unregistered_table_is_in_the_log_but_not_in_the_oracle(log_run: Run) -> None:
    audit = [record for record in log_run.records if table_of(record) == UNREGISTERED_TABLE.qualified_name]
    assert len(audit) > 20
    oracle = log_run.workload.oracle
    assert UNREGISTERED_TABLE.qualified_name not in oracle.tables
    found = uows(log_run.records)
    committed = [r for r in audit if found[r["uow_id"]].end and found[r["uow_id"]].end["record_type"] == "C"]
    assert oracle.unregistered_change_count == len(committed)
    assert oracle.unregistered_changes_written == len(audit)


@pytest.mark.parametrize("seed", [1, 2, 3, 42, 4711])
def test_every_seed_has_every_feature_within_5000_records(
    seed: int, registrations: dict[str, Registration]
) -> None:
    counts = feature_counts(generate("log", seed=seed).records, registrations)
    assert counts["non_key_columns_never_null"] == 0
    for feature in ("key_update", "reinsert", "multi_insert", "rollback", "unregistered", "awkward_string"):
        assert counts[feature] >= 3, (feature, counts)


def test_the_log_does_not_depend_on_hash_randomisation() -> None:
    script = (
        "import hashlib, json\n"
        "from lakerep.workload import Workload\n"
        "w = Workload(42)\n"
        "print(hashlib.sha256(json.dumps(w.next_batch(3000).records).encode()).hexdigest())\n"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            cwd=PROJECT_DIR,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for hash_seed in ("1", "2")
    }
    workload = Workload(42)
    here = hashlib.sha256(json.dumps(workload.next_batch(3000).records).encode()).hexdigest()
    assert digests == {here + "\n"}
