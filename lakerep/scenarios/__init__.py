"""Randomized crash scenarios against the oracle (SPEC §7): schedules drawn from a seed
(schedule), crash points (crash), the scenario driver (driver) and what must hold after it
(checks). `lakerep scenarios` runs them. `make scenarios` runs FIXED_SEEDS (pytest -m scenarios,
tests/scenarios/test_crash_scenarios.py); `make test` leaves them out (pyproject.toml's addopts
deselect the scenarios marker) and only draws their schedules, without Spark."""

FIXED_SEEDS = tuple(range(1, 21))
"""The fixed set `make scenarios` runs; a soak (`make soak`, `lakerep scenarios --count`) runs others."""
