"""A kill -9 at every durable step of each kind of run (issue 64): the steps are counted from the
run itself (crashpoints.enumeration), each is a crash point, and after each the operator's restart
leaves a lake that the kind's checks find equal to the oracle. Prints, per kind, the steps found,
the crashes made and the seconds (enumeration.report)."""

from __future__ import annotations

import time

import pytest
from crashpoints.enumeration import Enumeration, points, report
from crashpoints.postgresql_kind import PostgresqlKind
from crashpoints.run_kinds import KINDS

pytestmark = pytest.mark.crashpoints


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_kill_at_every_durable_step_loses_and_doubles_nothing(request, tmp_path, kind):
    if isinstance(KINDS[kind], PostgresqlKind):  # postgresql, schema-evolution
        request.getfixturevalue("source_server")
    enumeration = Enumeration(tmp_path, kind)
    enumeration.make_base()
    events = enumeration.count()
    started = time.monotonic()
    crashes = 0
    for checked in enumeration.crash_points(events):
        crashes += 1
        print(f"{kind}: killed {checked.killed_at}", flush=True)
        assert checked.passed, f"after a kill at {checked.killed_at}:\n{checked.output}"
        print(checked.output, flush=True)
    assert crashes == len(points(events)), crashes
    print(report(KINDS[kind].description, events, crashes, time.monotonic() - started), flush=True)
