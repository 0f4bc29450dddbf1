"""The bench counts the statements dbt sends and the Delta commits among them, and says what an
untouched registered table adds against a control with the same changes."""

from __future__ import annotations

from types import SimpleNamespace

import lakerep.bench_wide
from lakerep.bench import (
    CaseFigures,
    LandFigures,
    StatementMeter,
    _wide_case,
    parse_case_line,
    ratio_line,
    untouched_cost_line,
)
from lakerep.registrations import load_registrations


def sql_event(sql: str):
    return SimpleNamespace(info=SimpleNamespace(name="SQLQuery"), data=SimpleNamespace(sql=sql))


def test_writes_are_commits_and_reads_are_not():
    meter = StatementMeter()
    for sql in [
        '/* {"app": "dbt"} */ -- back compat for old kwarg name\n merge into t using s on true',
        "/* {} */ insert into table t select 1",
        "insert overwrite table t select 1",
        "create or replace table t using delta as select 1",
        "delete from t",
        "optimize t",
        "create or replace temporary view v as select 1",
        "/* {} */ select * from t",
        "describe table t",
    ]:
        meter(sql_event(sql))
    meter(SimpleNamespace(info=SimpleNamespace(name="SQLQueryStatus"), data=None))
    assert (meter.statements, meter.commits) == (9, 6)


def test_a_case_prints_one_summary_line():
    assert CaseFigures("cycle", 12.5, 12_260, 221, 38, 280).line() == (
        "bench cycle: 12.5 s, 981 records/s, 221 statements, 38 commits, 280 jobs"
    )
    assert CaseFigures("idle", 0.4, 0, 0, 0).line() == (
        "bench idle: 0.4 s, 0 records/s, 0 statements, 0 commits, 0 jobs"
    )


def test_the_landing_prints_its_figures_against_its_floor():
    assert LandFigures(1.1, 12_260, 1, 9, 0.5).line() == (
        "bench land: 1.1 s, 11,145 records/s, 1 commits, 9 jobs; land-floor 0.5 s; ratio land/land-floor 2.2"
    )


def test_a_case_line_reads_back_as_its_figures():
    figures = CaseFigures("wide", 61.5, 12_300, 640, 120, 301)
    assert parse_case_line(figures.line()) == figures


def test_the_ratios_are_of_cases_measured_in_the_same_run():
    cases = [
        CaseFigures("floor", 2.5, 130_000, 2, 1),
        CaseFigures("history", 100.0, 130_000, 206, 32),
        CaseFigures("cycle", 30.0, 12_260, 159, 23),
        CaseFigures("cycle-floor", 5.0, 12_260, 6, 6),
    ]
    assert ratio_line(cases) == "bench ratio: cycle/cycle-floor 6.0, history/floor 40.0"
    assert ratio_line(cases[2:3]) == "bench ratio: cycle/cycle-floor n/a, history/floor n/a"


def test_an_untouched_table_costs_the_difference_to_the_narrow_control_per_table():
    wide = CaseFigures("wide", 30.9, 13_729, 146, 19)
    narrow = CaseFigures("wide", 27.4, 13_729, 110, 19)
    assert untouched_cost_line(wide, narrow, untouched=45) == (
        "  wide: each of the 45 registered tables (and members) with nothing in the window "
        "adds 0.08 s, 0.8 statements and 0.0 commits"
    )


def test_the_wide_case_runs_a_narrow_control_of_the_changed_tables_beside_it(monkeypatch, tmp_path):
    monkeypatch.setenv("LAKEREP_HOME", str(tmp_path))
    calls = []

    def fake_run_wide(*, tables, seed, cycle_records, scratch):
        calls.append((tables, scratch))
        seconds = 30.0 if len(calls) == 1 else 25.5
        return ["  wide cycle: ...", CaseFigures("wide", seconds, 13_729, 146, 19).line()]

    monkeypatch.setattr(lakerep.bench_wide, "run_wide", fake_run_wide)
    changed = len(load_registrations()) + lakerep.bench_wide.CHANGED_WIDE_TABLES
    cases = []
    lines = list(_wide_case(cases, tables=changed + 45, seed=42, cycle_records=10_000))
    assert calls == [(changed + 45, tmp_path / "bench-wide"), (changed, tmp_path / "bench-narrow")]
    assert lines[-1].endswith("adds 0.10 s, 0.0 statements and 0.0 commits")
    assert [case.seconds for case in cases] == [30.0]

    calls.clear()
    list(_wide_case([], tables=changed, seed=42, cycle_records=10_000))
    assert calls == [(changed, tmp_path / "bench-wide")]
