"""A scenario's schedule, drawn from its seed: what lands, what runs, and where runners crash.

The same seed gives the same schedule and the same workload, so a failing scenario is reproduced
by its seed alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MIN_CRASHES = 3

# What may happen between two runs, with its weight.
EVENTS = {
    "warm": 5,  # nothing special: the next run is a warm start
    "cold": 1,  # a cold start at the end of the log (CURRENT_RESTART): a gap for every member
    "recover": 1,  # --start recover writes the state to a token file; the next warm run uses it
    "reread": 1,  # a token file moves one source back: its changes are read again
    "refresh": 1,  # lakerep refresh of a SALES member, and a new snapshot over a busy window
    "external": 1,  # another tool reloads stock_copy over a busy window, then mark-external-refresh
    "prune": 1,  # lakerep prune
    "retention": 1,  # a prune with RETENTION_LIMIT 0: every member behind is in a gap
}


# Events with work of their own where a crash point may fall, instead of in the run after them,
# and the kind of work it is.
EVENTS_WITH_OWN_WORK = {"recover": "recover run", "prune": "prune", "retention": "retention prune"}

# The work a crash point falls in (ADR 0005): the fixed set draws each.
CRASH_KINDS = ("warm run", "cold run", *EVENTS_WITH_OWN_WORK.values())


@dataclass(frozen=True)
class Step:
    """Land `records` log records, do `event`, then run a cycle (`--once`). The run, or the
    event's own work (`crash_in_event`), crashes before the statement at `crash_fraction` of
    the statements the last complete work of its kind sent (None: no crash; Driver.estimate)."""

    records: int
    event: str
    crash_fraction: float | None
    crash_in_event: bool = False  # the crash point is in the event's own work: its prune or recover run

    def describe(self) -> str:
        crash = (
            f", crash at {self.crash_fraction:.0%} of {self.crashing_work}"
            if self.crash_fraction is not None
            else ""
        )
        return f"land {self.records}, {self.event}{crash}"

    @property
    def crash_kind(self) -> str | None:
        """Which of CRASH_KINDS the crash point falls in (None: the step has none)."""
        if self.crash_fraction is None:
            return None
        if self.crash_in_event:
            return EVENTS_WITH_OWN_WORK[self.event]
        return "cold run" if self.event == "cold" else "warm run"

    @property
    def crashing_work(self) -> str:
        return f"the {self.crash_kind}" if self.crash_in_event else "the run"


@dataclass(frozen=True)
class Schedule:
    seed: int
    landing_order: str
    first_records: int
    steps: tuple[Step, ...]

    def describe(self) -> str:
        return f"seed {self.seed} ({self.landing_order} order, first {self.first_records}): " + "; ".join(
            f"{number}. {step.describe()}" for number, step in enumerate(self.steps, 1)
        )


def draw_schedule(seed: int, *, steps: int | None = None, crashes: int = MIN_CRASHES) -> Schedule:
    """A schedule of `steps` steps (drawn, 4 to 6, when None) with at least `crashes` crash points."""
    rng = random.Random(f"lakerep-scenario-{seed}")
    count = steps if steps is not None else rng.randint(4, 6)
    crashing = set(rng.sample(range(count), min(count, crashes + rng.randint(0, 1))))
    drawn = []
    for number in range(count):
        event = rng.choices(list(EVENTS), weights=list(EVENTS.values()))[0]
        crash = number in crashing
        drawn.append(
            Step(
                records=rng.randint(60, 320),
                event=event,
                crash_fraction=1.0 - rng.random() if crash else None,  # in (0, 1]: any statement
                crash_in_event=crash and event in EVENTS_WITH_OWN_WORK and rng.random() < 0.5,
            )
        )
    return Schedule(
        seed=seed,
        landing_order=rng.choice(["log", "log", "commit"]),
        first_records=rng.randint(200, 500),
        steps=tuple(drawn),
    )
