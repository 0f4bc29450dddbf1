"""A Debezium event's row schema as the schema history reads it (ADR 0012), a case per field kind,
with fields as the PostgreSQL connector writes them (copied from the embedded engine's output
for the demo's tables), and where `lakerep land` finds a table's schema change in a file. No
Spark."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from lakerep.land_files import _schema_changes, read_file
from lakerep.registrations import load_registrations
from lakerep.sources.debezium_schema import change_of, field_default, source_columns
from lakerep.sources.schema_history import Column, Shape, changes_between

CUSTOMER_FIELDS = [
    {"type": "string", "optional": False, "field": "customer_id"},
    {"type": "string", "optional": True, "field": "name"},
    {"type": "string", "optional": True, "field": "email"},
    {"type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
     "parameters": {"scale": "2", "connect.decimal.precision": "12"}, "field": "credit_limit"},
    {"type": "int32", "optional": True, "name": "io.debezium.time.Date", "version": 1, "field": "created_on"},
    {"type": "int64", "optional": True, "name": "io.debezium.time.MicroTimestamp", "version": 1,
     "field": "updated_at"},
]  # fmt: skip
CUSTOMERS = Shape(
    (Column("customer_id", "string"), Column("name", "string"), Column("email", "string"),
     Column("credit_limit", "decimal(12,2)"), Column("created_on", "date"),
     Column("updated_at", "timestamp")),
    ("customer_id",),
)  # fmt: skip
TIER = {"type": "int32", "optional": False, "default": 3, "field": "tier"}


def event(fields: list[dict] | None, lsn: int = 22287896, op: str = "u", table: str = "CUSTOMERS") -> dict:
    payload = {"op": op, "before": None, "after": {"customer_id": "C1"},
               "source": {"schema": "SALES", "table": table, "lsn": lsn}}  # fmt: skip
    if fields is None:
        return payload
    row = {"type": "struct", "fields": fields, "field": "after"}
    return {"schema": {"type": "struct", "fields": [{**row, "field": "before"}, row]}, "payload": payload}


def kinds(fields: list[dict]) -> list[tuple]:
    changes = changes_between(CUSTOMERS, source_columns(fields, CUSTOMERS.live()), CUSTOMERS.key_columns)
    return [(change.kind, change.column_name, change.type_after) for change in changes]


def test_the_registered_fields_change_nothing():
    assert kinds(CUSTOMER_FIELDS) == []


def test_an_added_field_is_an_added_column_of_its_type_with_its_default():
    assert kinds([*CUSTOMER_FIELDS, TIER]) == [("add_column", "tier", "int")]
    assert field_default([*CUSTOMER_FIELDS, TIER], "tier") == "3"
    assert field_default(CUSTOMER_FIELDS, "name") is None


def test_a_field_gone_is_a_dropped_column():
    assert kinds([f for f in CUSTOMER_FIELDS if f["field"] != "email"]) == [("drop_column", "email", None)]


def test_a_wider_field_is_a_widening_and_a_narrower_one_stops_the_table():
    wider = dict(CUSTOMER_FIELDS[3], parameters={"scale": "2", "connect.decimal.precision": "14"})
    assert kinds([*CUSTOMER_FIELDS[:3], wider, *CUSTOMER_FIELDS[4:]]) == [
        ("widen_column", "credit_limit", "decimal(14,2)")
    ]
    narrower = dict(CUSTOMER_FIELDS[3], parameters={"scale": "1", "connect.decimal.precision": "12"})
    assert [kind for kind, *_ in kinds([*CUSTOMER_FIELDS[:3], narrower, *CUSTOMER_FIELDS[4:]])] == ["unsafe"]


def test_a_decimal_as_text_is_the_column_it_was():
    # decimal.handling.mode=string: the field says string, the column is the decimal it was
    as_text = {"type": "string", "optional": True, "field": "credit_limit"}
    assert kinds([*CUSTOMER_FIELDS[:3], as_text, *CUSTOMER_FIELDS[4:]]) == []


def test_a_field_no_type_holds_stops_the_table():
    time_of_day = {"type": "int64", "optional": True, "name": "io.debezium.time.MicroTime", "field": "opens"}
    (change,) = changes_between(
        CUSTOMERS, source_columns([*CUSTOMER_FIELDS, time_of_day], CUSTOMERS.live()), ("customer_id",)
    )
    assert (
        change.kind == "unsafe" and "opens was added as int64 (io.debezium.time.MicroTime)" in change.detail
    )


@pytest.mark.parametrize(
    ("field", "text"),
    [
        ({"type": "int32", "name": "io.debezium.time.Date", "default": -1}, "1969-12-31"),
        ({"type": "int64", "name": "io.debezium.time.MicroTimestamp", "default": 1500000},
         "1970-01-01 00:00:01.500000"),
        ({"type": "int64", "name": "io.debezium.time.Timestamp", "default": 2000}, "1970-01-01 00:00:02"),
        ({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "default": "/2k=",
          "parameters": {"scale": "2"}}, "-1.51"),
        ({"type": "boolean", "default": False}, "false"),
        ({"type": "string", "default": "none"}, "none"),
    ],
)  # fmt: skip
def test_a_default_is_the_text_of_its_value(field, text):
    assert field_default([{**field, "field": "x"}], "x") == text


def test_a_change_event_gives_its_table_position_and_row_schema():
    assert change_of(event(CUSTOMER_FIELDS)) == (
        "SALES.CUSTOMERS",
        f"{22287896:016X}0000",
        {"fields": CUSTOMER_FIELDS},
    )
    assert change_of(event(None, op="d")) == (
        "SALES.CUSTOMERS",
        f"{22287896:016X}0000",
        {"names": ["customer_id"]},
    )
    assert change_of(event(CUSTOMER_FIELDS, op="r")) is None  # a snapshot read
    assert change_of({"status": "END", "id": "1:2"}) is None
    assert change_of(None) is None


def test_a_file_names_each_line_where_a_tables_row_schema_changes(tmp_path):
    lines = [event(CUSTOMER_FIELDS, 10), event(CUSTOMER_FIELDS, 11),
             event(CUSTOMER_FIELDS, 12, table="NOT_REGISTERED"),
             event([*CUSTOMER_FIELDS, TIER], 13), event([*CUSTOMER_FIELDS, TIER], 14), None]  # fmt: skip
    path = tmp_path / "events.jsonl"
    path.write_text("".join(f"{json.dumps(line)}\n" for line in lines), encoding="utf-8")
    assert [(line, name, position) for line, name, position, _ in read_file(path, "debezium").shapes] == [
        (1, "SALES.CUSTOMERS", f"{10:016X}0000"),
        (4, "SALES.CUSTOMERS", f"{13:016X}0000"),
    ]


NO_HISTORY_YET = SimpleNamespace(catalog=SimpleNamespace(tableExists=lambda name: False))


def written(tmp_path, *events) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_text("".join(f"{json.dumps(e)}\n" for e in events), encoding="utf-8")
    return path


def test_a_files_new_column_becomes_a_history_row_with_its_default(tmp_path):
    landed = read_file(
        written(tmp_path, event(CUSTOMER_FIELDS, 10), event([*CUSTOMER_FIELDS, TIER], 13)), "debezium"
    )
    (row,) = _schema_changes(NO_HISTORY_YET, [landed], load_registrations())
    assert (row.source_table, row.log_position, row.change.kind, row.change.column_name) == (
        "CUSTOMERS",
        f"{13:016X}0000",
        "add_column",
        "tier",
    )
    assert row.change.column_default == "3"


def test_an_unwrapped_event_with_a_column_the_lake_does_not_know_is_refused(tmp_path):
    unwrapped = event(None)
    unwrapped["after"]["tier"] = 5
    path = written(tmp_path, event(None), unwrapped)
    with pytest.raises(
        ValueError, match=r"line 2: SALES.CUSTOMERS has columns the lake does not know \(tier\)"
    ):
        _schema_changes(NO_HISTORY_YET, [read_file(path, "debezium")], load_registrations())
