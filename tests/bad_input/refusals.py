"""Shared by the bad-input tests that need no lake: a refusal comes before anything starts."""

from __future__ import annotations

from click.testing import CliRunner

from lakerep import apply_commands, cli, dbt, lake, session

ENTRY_POINTS = [(session, "_cycle"), (dbt, "invoke"), (lake, "lake_session"), (cli, "land_workload")]
PRUNE = (apply_commands, "prune")
OPERATION = (dbt, "run_operation")


def forbid_starting_anything(monkeypatch, *also: tuple[object, str]) -> None:
    """Make every cycle, dbt invocation, Spark session and landing (and the entry points in
    `also`, such as PRUNE and OPERATION) fail the test."""

    def started(*args, **kwargs):
        raise AssertionError("a cycle, dbt, Spark, landing, prune or operation started")

    for module, name in [*ENTRY_POINTS, *also]:
        monkeypatch.setattr(module, name, started)


def lakerep_command(*args: str):
    return CliRunner().invoke(cli.main, list(args))
