"""Crash points in every `make test` (issue 64). Every point of the three kinds the issue names
there (a warm cycle with changes, a refresh cycle, a PostgreSQL session's cycle: 60 points) takes
over an hour here, each a JVM start and a cold JVM's cycle (ADR 0013), so a run of `make test`
takes one of the kinds, counts its durable steps against the lake as `make crashpoints` does, and
kills the run at every STRIDE-th point, a stride that leaves POINTS_A_RUN of them. Which kind and
which points follow from the project's fingerprint (lakerep.data_test_schedule): the same code
always runs the same slice, and successive changes to the code turn through every point of the
three kinds. `make crashpoints` runs every point of every kind."""

from __future__ import annotations

import math
import time

from crashpoints.enumeration import Enumeration, points, report
from crashpoints.postgresql_kind import PostgresqlKind
from crashpoints.run_kinds import KINDS

from lakerep.data_test_schedule import project_fingerprint

IN_EVERY_MAKE_TEST = ("warm", "refresh", "postgresql")
POINTS_A_RUN = 5


def chosen_kind(fingerprint: str) -> str:
    """The kind a project of `fingerprint` runs."""
    return IN_EVERY_MAKE_TEST[_turn(fingerprint) % len(IN_EVERY_MAKE_TEST)]


def chosen_points(fingerprint: str, every: list[int]) -> list[int]:
    """The points of its kind's (`every`) a project of `fingerprint` runs."""
    stride = math.ceil(len(every) / POINTS_A_RUN)
    return every[(_turn(fingerprint) // len(IN_EVERY_MAKE_TEST)) % stride :: stride]


def _turn(fingerprint: str) -> int:
    return int(fingerprint[:12], 16)


def test_slices_turn_through_every_point_of_the_three_kinds():
    kinds_points = {"warm": [*range(1, 18)], "refresh": [*range(1, 21)], "postgresql": [*range(1, 24)]}
    covered = {kind: set() for kind in IN_EVERY_MAKE_TEST}
    for turn in range(len(IN_EVERY_MAKE_TEST) * POINTS_A_RUN):
        kind = chosen_kind(f"{turn:012x}")
        chosen = chosen_points(f"{turn:012x}", kinds_points[kind])
        assert 0 < len(chosen) <= POINTS_A_RUN
        covered[kind] |= set(chosen)
    assert covered == {kind: set(every) for kind, every in kinds_points.items()}


def test_a_kill_at_a_slice_of_the_durable_steps_loses_and_doubles_nothing(request, tmp_path):
    fingerprint = project_fingerprint()
    kind = chosen_kind(fingerprint)
    if isinstance(KINDS[kind], PostgresqlKind):
        request.getfixturevalue("source_server")
    enumeration = Enumeration(tmp_path, kind)
    enumeration.make_base()
    events = enumeration.count()
    chosen = chosen_points(fingerprint, points(events))
    started = time.monotonic()
    crashes = 0
    for checked in enumeration.crash_points(events, chosen):
        crashes += 1
        print(f"{kind}: killed {checked.killed_at}", flush=True)
        assert checked.passed, f"after a kill at {checked.killed_at}:\n{checked.output}"
    assert crashes == len(chosen) > 0, (crashes, chosen)
    print(report(KINDS[kind].description, events, crashes, time.monotonic() - started), flush=True)
