"""The one value encoding of row images (lakerep/workload/values.py)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from lakerep.registrations import Column
from lakerep.workload import RowCodec, decode_value, encode_value
from lakerep.workload.values import format_position, parse_position, parse_timestamp


@pytest.mark.parametrize(
    ("value", "data_type", "encoded"),
    [
        (9_223_372_036_854_775_807, "bigint", 9_223_372_036_854_775_807),
        (-2_147_483_648, "int", -2_147_483_648),
        (Decimal("1234.5"), "decimal(12,2)", "1234.50"),
        (Decimal("1234.50"), "decimal(12,2)", "1234.50"),
        (Decimal("-0.01"), "decimal(10,2)", "-0.01"),
        (Decimal("0"), "decimal(10,2)", "0.00"),
        (Decimal("9999999999.99"), "decimal(12,2)", "9999999999.99"),
        (Decimal("1E+2"), "decimal(5,0)", "100"),
        (
            Decimal("12345678901234567890123456789.123456789"),
            "decimal(38,9)",
            "12345678901234567890123456789.123456789",
        ),
        ('O\'Brien "Bob" \\ 東京 🚀', "string", 'O\'Brien "Bob" \\ 東京 🚀'),
        ("", "string", ""),
        (date(2024, 2, 29), "date", "2024-02-29"),
        (datetime(2026, 1, 1), "timestamp", "2026-01-01 00:00:00.000000"),
        (datetime(1999, 12, 31, 23, 59, 59, 999_999), "timestamp", "1999-12-31 23:59:59.999999"),
        (None, "decimal(12,2)", None),
        (None, "string", None),
    ],
)
def test_values_encode_to_the_contract_and_decode_back(value, data_type, encoded) -> None:
    assert encode_value(value, data_type) == encoded
    decoded = decode_value(encoded, data_type)
    assert decoded == value
    assert type(decoded) is type(value)


@pytest.mark.parametrize(
    ("value", "data_type"),
    [
        (Decimal("1.005"), "decimal(10,2)"),  # would need rounding
        (Decimal("10000000000.00"), "decimal(12,2)"),  # 11 integer digits
        (1.5, "decimal(10,2)"),
        (2_147_483_648, "int"),
        (True, "bigint"),
        (42, "string"),
        (datetime(2026, 1, 1), "date"),
        (datetime(2026, 1, 1, tzinfo=UTC), "timestamp"),
        ("2026-01-01", "date"),
    ],
)
def test_encoding_rejects_values_that_do_not_fit_their_type(value, data_type) -> None:
    with pytest.raises(ValueError):
        encode_value(value, data_type)


@pytest.mark.parametrize(
    ("value", "data_type"),
    [
        (1234.5, "decimal(12,2)"),
        ("1234.5", "decimal(12,2)"),
        ("1e3", "decimal(12,2)"),
        ("12", "decimal(12,2)"),
        (True, "int"),
        (2_147_483_648, "int"),
        ("7", "bigint"),
        (7, "string"),
        ("2026-1-1", "date"),
        ("2026-01-01T00:00:00.000000", "timestamp"),
        ("2026-01-01 00:00:00", "timestamp"),
    ],
)
def test_decoding_is_strict(value, data_type) -> None:
    with pytest.raises(ValueError):
        decode_value(value, data_type)


def test_unknown_types_are_refused() -> None:
    with pytest.raises(ValueError, match="unsupported column type"):
        encode_value(1, "float")


COLUMNS = (
    Column("id", "bigint"),
    Column("name", "string"),
    Column("amount", "decimal(14,2)"),
    Column("day", "date"),
    Column("at", "timestamp"),
    Column("count", "int"),
)


@pytest.mark.parametrize(
    "name",
    ['O\'Brien "Bob"', "Zoë Ünal", "東京", "emoji 🚀🎉", "back\\slash", "line\nbreak\ttab", "\u2028", ""],
)
def test_row_images_are_json_dumps_with_ensure_ascii_false(name: str) -> None:
    codec = RowCodec(COLUMNS)
    values = (7, name, Decimal("-12.30"), date(2000, 1, 1), datetime(2026, 1, 1, 0, 0, 0, 1), None)
    text = codec.encode(values)
    assert text == json.dumps(
        {
            "id": 7,
            "name": name,
            "amount": "-12.30",
            "day": "2000-01-01",
            "at": "2026-01-01 00:00:00.000001",
            "count": None,
        },
        ensure_ascii=False,
    )
    assert codec.decode(text) == dict(zip(codec.names, values, strict=True))


def test_row_images_must_carry_every_column_in_declared_order() -> None:
    codec = RowCodec(COLUMNS)
    with pytest.raises(ValueError, match="expected"):
        codec.decode('{"name": "x", "id": 1, "amount": null, "day": null, "at": null, "count": null}')
    with pytest.raises(ValueError, match="expected"):
        codec.decode('{"id": 1}')
    with pytest.raises(ValueError, match="6 columns"):
        codec.encode((1, "x"))


def test_positions_are_twenty_upper_case_hex_digits() -> None:
    assert format_position(0x1A2B0) == "0000000000000001A2B0"
    assert parse_position("0000000000000001A2B0") == 0x1A2B0
    for bad in ("0000000000000001a2b0", "1A2B0", "0000000000000001A2B0 ", "G0000000000000000000"):
        with pytest.raises(ValueError):
            parse_position(bad)
    with pytest.raises(ValueError):
        format_position(16**20)


def test_timestamps_parse_only_the_contract_format() -> None:
    assert parse_timestamp("2026-01-01 00:00:00.123456") == datetime(2026, 1, 1, 0, 0, 0, 123_456)
    with pytest.raises(ValueError):
        parse_timestamp("2026-01-01 00:00:00.1234")
