"""The one encoding of column values in landed row images, and its decoding.

Row images are JSON objects of column -> value. Integers are JSON numbers; decimals are JSON
strings with exactly the declared scale (a JSON number would lose trailing zeros and, past 2**53,
digits); dates and timestamps are fixed-format strings; null is JSON null. Encoding is strict
(a value that does not fit its declared type is an error) so a generator bug surfaces here and
not as a silent mismatch downstream.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Context, Decimal, InvalidOperation
from functools import cache
from json.encoder import encode_basestring  # the C escaper json.dumps uses with ensure_ascii=False
from typing import Any

from lakerep.registrations import Column

POSITION_DIGITS = 20
_POSITION_PATTERN = re.compile(r"[0-9A-F]{20}")
_DATE_PATTERN = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP_PATTERN = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}")
_DECIMAL_TYPE_PATTERN = re.compile(r"decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)")
# Spark decimals reach 38 digits, beyond the default context precision of 28.
_DECIMAL_CONTEXT = Context(prec=80)
_INTEGER_BITS = {"tinyint": 8, "smallint": 16, "int": 32, "integer": 32, "bigint": 64}

Value = int | Decimal | str | date | datetime | None
JsonValue = int | str | None


@dataclass(frozen=True)
class SqlType:
    """A declared column type: kind is integer, decimal, string, date or timestamp."""

    kind: str
    bits: int = 0
    precision: int = 0
    scale: int = 0


@cache
def parse_type(data_type: str) -> SqlType:
    name = data_type.strip().lower()
    if name in _INTEGER_BITS:
        return SqlType("integer", bits=_INTEGER_BITS[name])
    if name == "string":
        return SqlType("string")
    if name == "date":
        return SqlType("date")
    if name == "timestamp":
        return SqlType("timestamp")
    match = _DECIMAL_TYPE_PATTERN.fullmatch(name)
    if match:
        precision, scale = int(match.group(1)), int(match.group(2))
        if not 0 <= scale <= precision or precision == 0:
            raise ValueError(f"decimal type {data_type!r} needs 0 <= scale <= precision and precision > 0")
        return SqlType("decimal", precision=precision, scale=scale)
    raise ValueError(f"unsupported column type {data_type!r}")


def format_position(number: int) -> str:
    if not 0 <= number < 16**POSITION_DIGITS:
        raise ValueError(f"log position {number} does not fit {POSITION_DIGITS} hex digits")
    return f"{number:020X}"


def parse_position(text: str) -> int:
    if not isinstance(text, str) or not _POSITION_PATTERN.fullmatch(text):
        raise ValueError(f"log position {text!r} is not {POSITION_DIGITS} upper-case hex digits")
    return int(text, 16)


def format_timestamp(value: datetime) -> str:
    return value.isoformat(sep=" ", timespec="microseconds")


def parse_timestamp(text: str) -> datetime:
    if not _TIMESTAMP_PATTERN.fullmatch(text):
        raise ValueError(f"timestamp {text!r} is not YYYY-MM-DD HH:MM:SS.ffffff")
    return datetime.fromisoformat(text)


def encode_value(value: Value, data_type: str) -> JsonValue:
    return _encoder(parse_type(data_type))(value)


def decode_value(value: Any, data_type: str) -> Value:
    return _decoder(parse_type(data_type))(value)


class RowCodec:
    """Encodes and decodes full row images of one table, columns in declared order.

    encode() is the generator's hot path: it writes the JSON text itself, exactly as
    json.dumps(image, ensure_ascii=False) would, converting decimals, dates and timestamps strictly
    and passing integers and strings through unchecked. decode() checks every value against its
    type, and the tests decode everything the generator writes.
    """

    def __init__(self, columns: Sequence[Column]) -> None:
        self.names = tuple(column.name for column in columns)
        types = [parse_type(column.data_type) for column in columns]
        self._prefixes = tuple(encode_basestring(name) + ": " for name in self.names)
        self._converters = tuple(
            None if sql_type.kind in ("integer", "string") else _encoder(sql_type) for sql_type in types
        )
        self._decoders = tuple(_decoder(sql_type) for sql_type in types)

    def encode(self, values: Sequence[Value]) -> str:
        if len(values) != len(self.names):
            raise ValueError(f"row has {len(values)} values for {len(self.names)} columns")
        parts = []
        for prefix, convert, value in zip(self._prefixes, self._converters, values, strict=True):
            if value is None:
                parts.append(prefix + "null")
            elif convert is not None:
                parts.append(prefix + encode_basestring(convert(value)))
            elif type(value) is int:
                parts.append(prefix + int.__repr__(value))
            else:
                parts.append(prefix + encode_basestring(value))
        return "{" + ", ".join(parts) + "}"

    def decode(self, text: str) -> dict[str, Value]:
        image = json.loads(text)
        if not isinstance(image, dict) or list(image) != list(self.names):
            found = list(image) if isinstance(image, dict) else type(image).__name__
            raise ValueError(f"row image has columns {found}, expected {list(self.names)}")
        return {name: decode(image[name]) for name, decode in zip(self.names, self._decoders, strict=True)}


def _encoder(sql_type: SqlType) -> Callable[[Value], JsonValue]:
    if sql_type.kind == "integer":
        low, high = -(2 ** (sql_type.bits - 1)), 2 ** (sql_type.bits - 1) - 1

        def encode_integer(value: Value) -> JsonValue:
            if value is None:
                return None
            if type(value) is not int or not low <= value <= high:
                raise ValueError(f"{value!r} is not a {sql_type.bits}-bit integer")
            return value

        return encode_integer
    if sql_type.kind == "decimal":
        quantum = Decimal(1).scaleb(-sql_type.scale)
        integer_digits = sql_type.precision - sql_type.scale

        def encode_decimal(value: Value) -> JsonValue:
            if value is None:
                return None
            if not isinstance(value, Decimal):
                raise ValueError(f"{value!r} is not a Decimal")
            exact = value.quantize(quantum, context=_DECIMAL_CONTEXT)
            if exact != value or exact.adjusted() >= integer_digits:
                raise ValueError(f"{value} does not fit decimal({sql_type.precision},{sql_type.scale})")
            return format(exact, "f")

        return encode_decimal
    if sql_type.kind == "string":

        def encode_string(value: Value) -> JsonValue:
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{value!r} is not a string")
            return value

        return encode_string
    if sql_type.kind == "date":

        def encode_date(value: Value) -> JsonValue:
            if value is None:
                return None
            if type(value) is not date:
                raise ValueError(f"{value!r} is not a date")
            return value.isoformat()

        return encode_date

    def encode_timestamp(value: Value) -> JsonValue:
        if value is None:
            return None
        if type(value) is not datetime or value.tzinfo is not None:
            raise ValueError(f"{value!r} is not a naive (UTC) datetime")
        return format_timestamp(value)

    return encode_timestamp


def _decoder(sql_type: SqlType) -> Callable[[Any], Value]:
    if sql_type.kind == "integer":
        low, high = -(2 ** (sql_type.bits - 1)), 2 ** (sql_type.bits - 1) - 1

        def decode_integer(value: Any) -> Value:
            if value is not None and (type(value) is not int or not low <= value <= high):
                raise ValueError(f"{value!r} is not a {sql_type.bits}-bit JSON integer")
            return value

        return decode_integer
    if sql_type.kind == "decimal":
        pattern = re.compile(rf"-?\d+\.\d{{{sql_type.scale}}}" if sql_type.scale else r"-?\d+")

        def decode_decimal(value: Any) -> Value:
            if value is None:
                return None
            if not isinstance(value, str) or not pattern.fullmatch(value):
                raise ValueError(f"{value!r} is not a decimal string with {sql_type.scale} decimals")
            try:
                return Decimal(value)
            except InvalidOperation as error:  # pragma: no cover - the pattern admits only numbers
                raise ValueError(f"{value!r} is not a decimal") from error

        return decode_decimal
    if sql_type.kind == "string":

        def decode_string(value: Any) -> Value:
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{value!r} is not a JSON string")
            return value

        return decode_string
    if sql_type.kind == "date":

        def decode_date(value: Any) -> Value:
            if value is None:
                return None
            if not isinstance(value, str) or not _DATE_PATTERN.fullmatch(value):
                raise ValueError(f"{value!r} is not a YYYY-MM-DD date")
            return date.fromisoformat(value)

        return decode_date

    def decode_timestamp(value: Any) -> Value:
        if value is None:
            return None
        if not isinstance(value, str):
            raise ValueError(f"{value!r} is not a timestamp string")
        return parse_timestamp(value)

    return decode_timestamp
