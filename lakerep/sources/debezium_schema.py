"""A Debezium change event's row schema, as the schema history compares it (ADR 0012).

With JsonConverter's schema/payload wrapper, every change event says its row's fields: Kafka
Connect's type, a logical name (io.debezium.time.Date, Kafka Connect's Decimal, ...) with its
parameters, and the column's default. `lakerep land` compares them with the lake's shape of the
table, as the PostgreSQL reader compares a Relation message: a field the shape lacks is an added
column, a column the fields lack a dropped one, a wider integer or decimal a widening. The event
value holds no key (that is the event key's), so a key change goes unseen here. An event without
the wrapper gives names and no types: a column the shape lacks is refused, nothing landed.

A field's default is taken as what the rows from before an ADD COLUMN hold, as PostgreSQL's ADD
COLUMN ... DEFAULT gives them; a default set after the column was added is not (those rows hold
null), and the schema cannot tell the two apart: docs/schema-evolution.md says to refresh then.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from decimal import Decimal

from lakerep.sources.schema_history import SourceColumn

CHANGE_OPS = ("c", "u", "d")
_PLAIN = {
    "boolean": "boolean",
    "int8": "tinyint",
    "int16": "smallint",
    "int32": "int",
    "int64": "bigint",
    "float32": "float",
    "float64": "double",
    "string": "string",
}
_LOGICAL = {
    "io.debezium.time.Date": "date",
    "org.apache.kafka.connect.data.Date": "date",
    "io.debezium.time.Timestamp": "timestamp",
    "io.debezium.time.MicroTimestamp": "timestamp",
    "io.debezium.time.NanoTimestamp": "timestamp",
    "io.debezium.time.ZonedTimestamp": "timestamp",
    "org.apache.kafka.connect.data.Timestamp": "timestamp",
    "io.debezium.data.Json": "string",
    "io.debezium.data.Uuid": "string",
}
_DECIMAL = "org.apache.kafka.connect.data.Decimal"
_EPOCH = datetime(1970, 1, 1)
_MICROSECONDS = {  # a timestamp's number as microseconds, per logical type
    "io.debezium.time.Timestamp": lambda value: value * 1000,
    "org.apache.kafka.connect.data.Timestamp": lambda value: value * 1000,
    "io.debezium.time.MicroTimestamp": lambda value: value,
    "io.debezium.time.NanoTimestamp": lambda value: value // 1000,
}


def unwrapped(event: dict) -> tuple[bool, object]:
    """(whether the event has JsonConverter's schema/payload wrapper, its payload)."""
    wrapped = isinstance(event.get("schema"), dict)
    return wrapped, event.get("payload") if wrapped else event


def change_of(event: dict | None) -> tuple[str, str, dict | None] | None:
    """(schema.table, log position of the event's WAL record, its row) of a change event: the row
    is {"fields": [...]} with the wrapper, {"names": [...]} without (the image's), or None when
    it says neither. None for any other event (a tombstone, BEGIN, END, a snapshot read) or one
    whose position is unreadable (staging quarantines it)."""
    if not isinstance(event, dict):
        return None
    wrapped, payload = unwrapped(event)
    if not isinstance(payload, dict) or payload.get("op") not in CHANGE_OPS:
        return None
    source = payload.get("source")
    lsn = source.get("lsn") if isinstance(source, dict) else None
    if not isinstance(lsn, int | str) or not str(lsn).isdigit():
        return None
    name = f"{source.get('schema')}.{source.get('table')}"
    position = f"{int(lsn):016X}0000"  # the first row of its WAL record: stg_lakerep_raw__debezium_log's
    if not wrapped:
        image = payload.get("after") if isinstance(payload.get("after"), dict) else payload.get("before")
        return name, position, {"names": sorted(image)} if isinstance(image, dict) else None
    fields = next(
        (part.get("fields") for part in event["schema"].get("fields") or [] if part.get("field") == "after"),
        None,
    )
    return name, position, {"fields": fields} if isinstance(fields, list) else None


def source_columns(fields: list[dict], live: Mapping[str, str]) -> list[SourceColumn]:
    """The row's fields as SourceColumns: Debezium's type, and the registered type it carries.
    A plain string is any column's text form under Debezium's string modes
    (decimal.handling.mode=string, a column the connector writes as text): a column the shape
    holds keeps its type."""
    columns = []
    for field in fields:
        name, kind, logical = field.get("field"), field.get("type"), field.get("name")
        registered = _registered_type(field)
        if kind == "string" and logical is None and name in live:
            registered = live[name]
        described = f"{kind} ({logical})" if logical else str(kind)
        columns.append(SourceColumn(name, described, registered))
    return columns


def field_default(fields: list[dict], column: str) -> str | None:
    """A field's default as text, as the history records a default (None: it has none)."""
    field = next((f for f in fields if f.get("field") == column), None)
    value = None if field is None else field.get("default")
    if value is None:
        return None
    logical = field.get("name")
    if isinstance(value, bool):
        return "true" if value else "false"
    if logical in ("io.debezium.time.Date", "org.apache.kafka.connect.data.Date"):
        return (date(1970, 1, 1) + timedelta(days=int(value))).isoformat()
    if logical in _MICROSECONDS:
        return (_EPOCH + timedelta(microseconds=_MICROSECONDS[logical](int(value)))).isoformat(sep=" ")
    if logical == _DECIMAL:
        unscaled = int.from_bytes(base64.b64decode(value), "big", signed=True)
        return str(Decimal(unscaled).scaleb(-int((field.get("parameters") or {}).get("scale", 0))))
    return value if isinstance(value, str) else json.dumps(value)


def _registered_type(field: dict) -> str | None:
    """The registered type of a field's values; None when none holds them (a time of day, a
    variable-scale decimal, a struct)."""
    logical = field.get("name")
    if logical == _DECIMAL:
        parameters = field.get("parameters") or {}
        precision, scale = parameters.get("connect.decimal.precision"), parameters.get("scale")
        return f"decimal({precision},{scale})" if precision and scale is not None else None
    if logical is not None:
        return _LOGICAL.get(logical)
    return _PLAIN.get(field.get("type"))
