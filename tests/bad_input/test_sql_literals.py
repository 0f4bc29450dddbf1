"""The one place a value from a file or a landed row becomes SQL text: the macro
lakerep_string_literal. A quote, a backslash, a backtick and a newline pass through it and come
back out of Spark unchanged (ADR 0007 names each kind of value and where it is escaped or
validated)."""

from __future__ import annotations

import json

from lakerep import dbt

AWKWARD = ["a'b", "a\\b", "a`b", "a\nb", "' OR '1'='1", "\\'", "'", "\\", "`", "\n"]


def test_a_string_literal_holds_the_value_exactly(spark):
    columns = (
        "{% for value in var('probes') %}{{ lakerep_string_literal(value) }} as probe_{{ loop.index }}"
        "{{ ', ' if not loop.last }}{% endfor %}"
    )
    outcome = dbt.invoke(
        ["show", "--inline", f"select {columns}", "--vars", json.dumps({"probes": AWKWARD})], quiet=True
    )
    [result] = outcome.result.results
    assert [list(row) for row in result.agate_table.rows] == [AWKWARD]
