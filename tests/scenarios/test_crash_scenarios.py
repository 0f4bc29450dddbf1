"""The fixed set of crash scenarios (SPEC §7): each draws a workload and a schedule from its seed
(restarts warm, cold and recover, token-file overrides, refreshes over busy windows, external
refreshes, prunes, retention gaps) with at least three runners crashing at random statements,
then checks the lake after a final clean warm run against the oracle (lakerep.scenarios.checks).
A failing scenario's message holds its seed, its schedule and `lakerep scenarios --seed N`.

Every seed carries the scenarios marker, which `make test` deselects (CI would not fit its time
with them: docs/decisions/0005-crash-scenarios.md) and `make scenarios` runs, each seed a unit of
its own for the two workers (tests/conftest.py)."""

from __future__ import annotations

import pytest

from lakerep.scenarios import FIXED_SEEDS
from lakerep.scenarios.driver import run_scenario
from lakerep.scenarios.schedule import MIN_CRASHES

SEEDS = [pytest.param(seed, marks=[pytest.mark.spark, pytest.mark.scenarios]) for seed in FIXED_SEEDS]


@pytest.mark.parametrize("seed", SEEDS)
def test_crash_scenario_ends_equal_to_the_oracle(spark, seed):
    result = run_scenario(seed, progress=print)
    print(result.line())
    assert len(result.journal.crashes) >= MIN_CRASHES, result.journal.crashes
    drawn = {step.crash_kind for step in result.schedule.steps} - {None}
    missed = drawn - set(result.journal.crashed_work)
    assert not missed, f"no crash in the {missed} the schedule drew: {result.journal.lost_crashes}"
