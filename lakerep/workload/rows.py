"""Random but reproducible row values for any registered table, driven by the declared types.

Values are drawn for their column type, not their column name, so the generator follows the
registrations as they change. Awkward values (quotes, backslashes, non-ASCII, type extremes,
leap days) are mixed in on purpose: they are what breaks replication SQL.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Context, Decimal
from operator import itemgetter

from lakerep.registrations import Registration
from lakerep.workload.values import SqlType, Value, parse_type

Row = tuple[Value, ...]
Key = tuple[Value, ...]

AWKWARD_STRINGS: tuple[str, ...] = (
    'O\'Brien "Bob"',
    "Zoë Ünal",
    "東京",
    "emoji 🚀🎉 ok",
    "😀",
    "back\\slash",
    "C:\\Temp\\new",
    "it''s doubled",
    'say "hi"',
    "'; DROP TABLE orders; --",
    "line one\nline two",
    "tab\tseparated",
    "",
    "  padded  ",
    "NULL",
    "null",
    "naïve café",
    "e\u0301 (decomposed)",
    "Ελληνικά",
    "עברית",
    "€ 1.234,50",
    "00123",
    "2026-01-01",
)
PLAIN_STRINGS: tuple[str, ...] = (
    "NEW",
    "PAID",
    "SHIPPED",
    "CANCELLED",
    "Jane Doe",
    "John Smith",
    "ACME Corp",
    "jane.doe@example.com",
    "orders@example.org",
    "WIDGET-01",
    "GADGET-XL",
    "bolt 5mm",
    "please call first",
    "gift wrap",
)
# Spark decimals reach 38 digits; the default context (28 digits) would round them.
_EXACT = Context(prec=80)
AWKWARD_STRING_RATE = 0.12
EXTREME_RATE = 0.02
# Awkward tails for a few string keys, so key joins and key order meet quotes and non-ASCII too.
AWKWARD_KEY_SUFFIXES: tuple[str, ...] = (" O'Brien", ' "q"', "\\x", "-Zoë", "-東京", "-🚀")
AWKWARD_KEY_RATE = 0.03

_SPECIAL_DATES = (
    date(1900, 1, 1),
    date(1970, 1, 1),
    date(1999, 12, 31),
    date(2000, 1, 1),
    date(2024, 2, 29),
    date(2099, 12, 31),
)
_DATE_LOW = date(1900, 1, 1).toordinal()
_DATE_HIGH = date(2099, 12, 31).toordinal()
_SPECIAL_TIMESTAMPS = (
    datetime(1971, 1, 1, 0, 0, 0, 0),
    datetime(2000, 1, 1, 0, 0, 0, 0),
    datetime(2024, 2, 29, 23, 59, 59, 999_999),
    datetime(2026, 1, 1, 0, 0, 0, 1),
    datetime(2099, 12, 31, 23, 59, 59, 999_999),
)
_TIMESTAMP_EPOCH = datetime(1971, 1, 1)
_TIMESTAMP_SPAN_SECONDS = int((datetime(2099, 12, 31) - _TIMESTAMP_EPOCH).total_seconds())


def value_generator(sql_type: SqlType, rng: random.Random) -> Callable[[], Value]:
    """A function drawing non-null values of one type."""
    if sql_type.kind == "integer":
        low, high = -(2 ** (sql_type.bits - 1)), 2 ** (sql_type.bits - 1) - 1
        extremes = (low, high, 0, -1)
        ordinary_high = min(high, 100_000 if sql_type.bits <= 32 else 10**12)

        def draw_integer() -> Value:
            if rng.random() < EXTREME_RATE:
                return rng.choice(extremes)
            return below(rng, ordinary_high + 101) - 100

        return draw_integer
    if sql_type.kind == "decimal":
        precision, scale = sql_type.precision, sql_type.scale

        def draw_decimal() -> Value:
            if rng.random() < EXTREME_RATE:
                unscaled = rng.choice((10**precision - 1, -(10**precision - 1), 0, 1))
            else:
                unscaled = below(rng, 10 ** (1 + below(rng, precision)))
                if unscaled and rng.random() < 0.1:
                    unscaled = -unscaled
            return Decimal(unscaled).scaleb(-scale, _EXACT)

        return draw_decimal
    if sql_type.kind == "string":

        def draw_string() -> Value:
            if rng.random() < AWKWARD_STRING_RATE:
                return AWKWARD_STRINGS[below(rng, len(AWKWARD_STRINGS))]
            return PLAIN_STRINGS[below(rng, len(PLAIN_STRINGS))]

        return draw_string
    if sql_type.kind == "date":

        def draw_date() -> Value:
            if rng.random() < EXTREME_RATE * 2:
                return rng.choice(_SPECIAL_DATES)
            return date.fromordinal(_DATE_LOW + below(rng, _DATE_HIGH - _DATE_LOW + 1))

        return draw_date

    def draw_timestamp() -> Value:
        if rng.random() < EXTREME_RATE * 2:
            return rng.choice(_SPECIAL_TIMESTAMPS)
        return _TIMESTAMP_EPOCH + timedelta(
            seconds=below(rng, _TIMESTAMP_SPAN_SECONDS + 1), microseconds=below(rng, 1_000_000)
        )

    return draw_timestamp


class RowFactory:
    """Fresh keys and row images for one table."""

    # Composite keys give each leading key this many trailing values (e.g. lines per order).
    FAN_OUT = 6

    def __init__(self, registration: Registration, rng: random.Random, null_rate: float) -> None:
        self.registration = registration
        self._rng = rng
        self._null_rate = null_rate
        names = registration.column_names
        self.key_indexes = tuple(names.index(name) for name in registration.key_columns)
        self.key_of: Callable[[Row], Key] = _tuple_getter(self.key_indexes)
        self.value_indexes = tuple(i for i in range(len(names)) if i not in self.key_indexes)
        self._key_types = tuple(parse_type(registration.columns[i].data_type) for i in self.key_indexes)
        self._draw = tuple(
            value_generator(parse_type(column.data_type), rng) for column in registration.columns
        )
        self._key_counter = 0

    def fresh_key(self) -> Key:
        """A key never handed out before by this factory."""
        self._key_counter += 1
        number = self._key_counter
        components: list[Value] = []
        last = len(self._key_types) - 1
        for position, (index, sql_type) in enumerate(zip(self.key_indexes, self._key_types, strict=True)):
            if last == 0:
                part = number
            elif position == last:
                part = number % self.FAN_OUT + 1
            else:
                # Leading components change together; only the last one varies within a parent.
                part = number // self.FAN_OUT + 1
            components.append(self._key_value(self.registration.columns[index].name, sql_type, part))
        return tuple(components)

    def new_row(self, key: Key) -> Row:
        values: list[Value] = [None] * len(self._draw)
        for index, component in zip(self.key_indexes, key, strict=True):
            values[index] = component
        random_unit, null_rate, draw = self._rng.random, self._null_rate, self._draw
        for index in self.value_indexes:
            # Every non-key column is nullable in the source; keys never are.
            if random_unit() >= null_rate:
                values[index] = draw[index]()
        return tuple(values)

    def changed_row(self, row: Row, key: Key | None = None) -> Row:
        """The row after an update: some non-key columns redrawn, and the key replaced if given."""
        values = list(row)
        if self.value_indexes:
            count = min(len(self.value_indexes), 1 + int(self._rng.expovariate(1.0)))
            for index in self._rng.sample(self.value_indexes, count):
                values[index] = self._nullable(index)
        if key is not None:
            for index, component in zip(self.key_indexes, key, strict=True):
                values[index] = component
        return tuple(values)

    def _nullable(self, index: int) -> Value:
        # Every non-key column is nullable in the source; keys never are.
        if self._rng.random() < self._null_rate:
            return None
        return self._draw[index]()

    def _key_value(self, column_name: str, sql_type: SqlType, number: int) -> Value:
        if sql_type.kind == "integer":
            return number
        if sql_type.kind == "string":
            text = f"{column_name[:1].upper()}{number:07d}"
            if self._rng.random() < AWKWARD_KEY_RATE:
                text += self._rng.choice(AWKWARD_KEY_SUFFIXES)
            return text
        if sql_type.kind == "decimal":
            return Decimal(number).scaleb(-sql_type.scale, _EXACT)
        if sql_type.kind == "date":
            return date(2000, 1, 1) + timedelta(days=number)
        return datetime(2000, 1, 1) + timedelta(seconds=number)


def _tuple_getter(indexes: tuple[int, ...]) -> Callable[[Row], Key]:
    if len(indexes) == 1:
        (index,) = indexes
        return lambda row: (row[index],)
    return itemgetter(*indexes)


def below(rng: random.Random, limit: int) -> int:
    """A uniform integer in [0, limit); cheaper than randrange where a float has the bits."""
    if limit < 2**52:
        return int(rng.random() * limit)
    return rng.randrange(limit)


class KeyPool:
    """Keys with O(1) add, remove and uniform random choice, in a reproducible order."""

    def __init__(self) -> None:
        self._keys: list[Key] = []
        self._index: dict[Key, int] = {}

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: Key) -> bool:
        return key in self._index

    def add(self, key: Key) -> None:
        if key not in self._index:
            self._index[key] = len(self._keys)
            self._keys.append(key)

    def discard(self, key: Key) -> None:
        index = self._index.pop(key, None)
        if index is None:
            return
        last = self._keys.pop()
        if index < len(self._keys):
            self._keys[index] = last
            self._index[last] = index

    def choice(self, rng: random.Random) -> Key | None:
        if not self._keys:
            return None
        return self._keys[below(rng, len(self._keys))]
