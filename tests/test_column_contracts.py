"""The data test lakerep_column_contracts (macros/tests/) against a plain-Python model of its three
rules: the macro's SQL, compiled by dbt as a test is, run on small tables of random rows (nulls,
duplicates, values outside a list, empty tables), must return exactly the rows the model says are
broken: a row per not_null or accepted_values rule broken (how many rows, the least offending
value), a row per duplicated key of each unique combination (the key as JSON, nulls included;
combinations that overlap, and a column named in another case than the table's)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from lakerep import dbt

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("one_parse")]

PROBE = "lakerep_contracts_probe"  # a temporary view of this SparkSession
SCHEMA = "a string, b int, c int"
RULES = [
    {"not_null": ["a", "b"], "accepted_values": {"c": [0, 1]}, "unique": [["a"], ["b", "c"]]},
    {"unique": [["a", "b"]]},
    {"not_null": ["c"], "accepted_values": {"a": ["x", "y"]}},
    {"not_null": ["a"], "unique": [["c"], ["a", "c"], ["B"]]},
]


def broken(rows: list[dict], not_null=(), accepted_values=None, unique=()) -> set[tuple]:
    """The rows the test should return: (rule, column_names, offending_value, failing_rows)."""
    found = set()
    for column in not_null:
        if nulls := sum(1 for row in rows if row[column] is None):
            found.add(("not_null", column, None, nulls))
    for column, values in (accepted_values or {}).items():
        outside = [str(row[column]) for row in rows if row[column] is not None and row[column] not in values]
        if outside:
            found.add(("accepted_values", column, min(outside), len(outside)))
    for columns in unique:
        keys = Counter(tuple(row[column.lower()] for column in columns) for row in rows)
        for key, count in keys.items():
            if count > 1:
                text = json.dumps(dict(zip(columns, key, strict=True)), separators=(",", ":"))
                found.add(("unique", ", ".join(columns), text, count))
    return found


def inline(rules: dict) -> str:
    """Inline SQL that calls the test's macro on the probe view with `rules` (as Python literals)."""
    arguments = "".join(f", {name}={value!r}" for name, value in rules.items())  # Jinja reads them
    return f"{{{{ test_lakerep_column_contracts(model='{PROBE}'{arguments}) }}}}"


def compiled(rules: dict) -> str:
    """The test's SQL on the probe view, as dbt compiles it."""
    outcome = dbt.invoke(["compile", "--inline", inline(rules)], quiet=True)
    return outcome.result.results[0].node.compiled_code


def random_rows(draw: random.Random) -> list[dict]:
    return [
        {
            "a": draw.choice([None, "x", "y", "z"]),
            "b": draw.choice([None, 1, 2, 3, 4, 5, 6]),
            "c": draw.choice([None, 0, 1, 2]),
        }
        for _ in range(draw.randint(0, 10))
    ]


@pytest.mark.parametrize("rules", RULES, ids=["both", "unique-only", "counted-only", "overlapping"])
def test_the_contract_test_returns_exactly_the_broken_rules(spark, rules):
    sql = compiled(rules)
    draw = random.Random(json.dumps(rules))
    for _ in range(12):
        rows = random_rows(draw)
        spark.createDataFrame(rows, SCHEMA).createOrReplaceTempView(PROBE)
        assert {tuple(row) for row in spark.sql(sql).collect()} == broken(rows, **rules), rows


@pytest.mark.parametrize(
    ("rules", "problem"),
    [
        ({}, "names no rule"),
        ({"unique": [["a", "b"], ["B", "A"]]}, "the unique combination B, A is listed twice"),
        ({"accepted_values": {"c": [0, None]}}, "accepted_values of c lists a null"),
    ],
)
def test_a_contract_that_cannot_be_checked_is_refused_naming_the_problem(rules, problem):
    said: list[str] = []  # what dbt prints
    args = ["compile", "--inline", inline(rules)]
    outcome = dbt.invoke(args, check=False, quiet=True, callbacks=[lambda event: said.append(event.info.msg)])
    assert outcome.exit_code != dbt.EXIT_OK
    assert any(problem in message for message in said), said
