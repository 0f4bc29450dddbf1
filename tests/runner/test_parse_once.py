"""A session's cycles reuse one parse of the project (lakerep.dbt.parse_once, ADR 0006)."""

from __future__ import annotations

import pytest

from lakerep import dbt

pytestmark = pytest.mark.spark

PARSED = "StateCheckVarsHash"  # dbt fires it whenever it parses the project (its partial-parse check)
WROTE_ARTIFACT = "ArtifactWritten"


def compile_run_id(run_id: str, events: list[str]) -> str:
    """`dbt compile` of an inline query that renders var('lakerep_run_id'); its compiled SQL."""
    outcome = dbt.invoke(
        [
            "compile",
            "--inline",
            "select '{{ var(\"lakerep_run_id\") }}' as run_id",
            "--vars",
            f'{{"lakerep_run_id": "{run_id}"}}',
        ],
        quiet=True,
        callbacks=[lambda event: events.append(event.info.name)],
    )
    return outcome.result.results[0].node.compiled_code


def test_invocations_inside_parse_once_parse_once_write_nothing_and_take_their_own_vars(spark, monkeypatch):
    parse_events: list[str] = []
    monkeypatch.setattr(dbt, "EVENT_CALLBACKS", [lambda event: parse_events.append(event.info.name)])
    with dbt.parse_once():
        first: list[str] = []
        assert compile_run_id("run-1", first) == "select 'run-1' as run_id"
        assert parse_events.count(PARSED) == 1  # the one parse, on the first invocation's behalf
        assert PARSED not in first
        parse_events.clear()
        second: list[str] = []
        assert compile_run_id("run-2", second) == "select 'run-2' as run_id"
        assert PARSED not in parse_events + second
        assert WROTE_ARTIFACT not in first + second  # no manifest.json, no run_results.json
    outside: list[str] = []
    assert compile_run_id("run-3", outside) == "select 'run-3' as run_id"
    assert PARSED in outside  # outside the scope, the invocation parses again itself


def test_a_parse_once_inside_another_keeps_the_outer_ones_parse():
    """A session run inside a test module's parse_once uses the module's parse: no second scope."""
    with dbt.parse_once():
        scopes = list(dbt._parses)
        with dbt.parse_once():
            assert dbt._parses == scopes
        assert dbt._parses == scopes
    assert dbt._parses == []
