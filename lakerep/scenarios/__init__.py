"""Randomized crash scenarios against the oracle (SPEC §7): schedules drawn from a seed
(schedule), crash points (crash), the scenario driver (driver) and what must hold after it
(checks). `lakerep scenarios` runs them. `make scenarios` runs FIXED_SEEDS
(tests/scenarios/test_crash_scenarios.py) and the proof that their checks fail on a tampered
lake; `make test`, and so CI, draws the schedules of all, without Spark."""

FIXED_SEEDS = tuple(range(1, 21))
"""The fixed set `make scenarios` runs; a soak (`make soak`, `lakerep scenarios --count`) runs others."""
