"""Randomized crash scenarios against the oracle (SPEC §7): schedules drawn from a seed
(schedule), crash points (crash), the scenario driver (driver) and what must hold after it
(checks). `lakerep scenarios` runs them; the tests run FIXED_SEEDS."""

FIXED_SEEDS = tuple(range(1, 21))
"""The fixed set the test command runs; a soak runs any others."""
