"""The enumeration catches a broken order (issue 64). In a copy of the project whose Apply commits
its record of a cycle (apply_cycles: the synchpoint each set reached) before the targets it
describes, a kill between the two leaves members advanced past changes their targets never got:
a point's checks fail. The real project's order passes at every point (test_every_durable_step).

The points run from the last to the first, and stop at the first whose checks fail: the order the
enumeration runs them in proves nothing, and the break lies near the cycle's end, where Apply
commits."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from crashpoints.enumeration import Enumeration, points

from lakerep import PROJECT_DIR
from lakerep.bench_wide import copy_project

pytestmark = pytest.mark.crashpoints

AFTER_THE_TARGETS = (
    "{%- for target_model in lakerep_member_targets() %}\n-- depends_on: {{ target_model }}\n{%- endfor %}\n"
)


def a_project_that_commits_apply_state_first(folder: Path) -> Path:
    """The project, with its tests (the crash points' processes), but apply_cycles runs before
    every target, which now depends on it."""
    copy_project(folder)
    shutil.copytree(PROJECT_DIR / "tests", folder / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    apply_cycles = folder / "models" / "apply" / "apply_cycles.sql"
    text = apply_cycles.read_text(encoding="utf-8")
    assert AFTER_THE_TARGETS in text, "apply_cycles no longer names the targets it runs after"
    apply_cycles.write_text(text.replace(AFTER_THE_TARGETS, ""), encoding="utf-8")
    for target in (folder / "models" / "apply" / "targets").glob("*.sql"):
        text = target.read_text(encoding="utf-8")
        target.write_text(text + "-- depends_on: {{ ref('apply_cycles') }}\n", encoding="utf-8")
    return folder


def test_apply_state_committed_before_its_targets_fails_the_checks_after_a_kill_between(tmp_path):
    project = a_project_that_commits_apply_state_first(tmp_path / "project")
    enumeration = Enumeration(tmp_path, "warm", project)
    enumeration.make_base()
    events = enumeration.count()
    commits = [event.rsplit("/", 3)[1] for event in events if " after delta-commit " in event]
    targets = [commits.index(path.stem) for path in (project / "models" / "apply" / "targets").glob("*.sql")]
    assert commits.index("apply_cycles") < min(targets), commits  # the copy's order is the broken one

    for checked in enumeration.crash_points(events, reversed(points(events))):
        print(f"killed {checked.killed_at}: checks {'passed' if checked.passed else 'failed'}", flush=True)
        if not checked.passed:
            break
    else:
        pytest.fail("no point's checks failed: the enumeration missed the broken order")
    assert "targets differ from the oracle" in checked.output, checked.output
