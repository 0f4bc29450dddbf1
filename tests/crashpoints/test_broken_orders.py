"""The enumeration catches a broken order (issue 64), in a copy of the project broken on purpose;
the real project's order passes at every point (test_every_durable_step).

- Apply commits its record of a cycle (apply_cycles: the synchpoint each set reached) before the
  targets it describes: a kill between the two leaves members advanced past changes their targets
  never got. The break lies near the cycle's end, where Apply commits: the points run from the last.
- A session reading a PostgreSQL source confirms the slot before the records it read land: a kill
  between the two loses them, as the server will not send them again. The break lies at the
  cycle's start, where it lands: the points run from the first.

Either way the points stop at the first whose checks fail: the order they run in proves nothing."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest
from crashpoints.enumeration import Checked, Enumeration, points

from lakerep import PROJECT_DIR
from lakerep.bench_wide import copy_project

pytestmark = pytest.mark.crashpoints

AFTER_THE_TARGETS = (
    "{%- for target_model in lakerep_member_targets() %}\n-- depends_on: {{ target_model }}\n{%- endfor %}\n"
)
LANDED_THEN_CONFIRMED = """                land = itertools.chain([first_new], new)
                count = landing.land_log_records(spark, land, before_write=lambda: _record(spark, changed))[1]
"""
CONFIRMED_THEN_LANDED = """                land = list(itertools.chain([first_new], new))
                opened.record = replace(opened.record, confirmed_lsn=stream.confirm_lsn)
                write_slot_record(spark, opened.record)
                source.confirm(stream.confirm_lsn)
                count = landing.land_log_records(spark, iter(land), before_write=lambda: _record(spark, changed))[1]
"""  # noqa: E501 (the runner's own lines)


def a_copy(folder: Path) -> Path:
    """The project, with its tests (the crash points' processes)."""
    copy_project(folder)
    shutil.copytree(PROJECT_DIR / "tests", folder / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def a_project_that_commits_apply_state_first(folder: Path) -> Path:
    """apply_cycles runs before every target, which now depends on it."""
    a_copy(folder)
    apply_cycles = folder / "models" / "apply" / "apply_cycles.sql"
    text = apply_cycles.read_text(encoding="utf-8")
    assert AFTER_THE_TARGETS in text, "apply_cycles no longer names the targets it runs after"
    apply_cycles.write_text(text.replace(AFTER_THE_TARGETS, ""), encoding="utf-8")
    for target in (folder / "models" / "apply" / "targets").glob("*.sql"):
        text = target.read_text(encoding="utf-8")
        target.write_text(text + "-- depends_on: {{ ref('apply_cycles') }}\n", encoding="utf-8")
    return folder


def a_project_that_confirms_the_slot_first(folder: Path) -> Path:
    """The runner records and confirms the slot's new position once it has read the records, before
    they land."""
    a_copy(folder)
    landing = folder / "lakerep" / "sources" / "landing.py"
    text = landing.read_text(encoding="utf-8")
    assert LANDED_THEN_CONFIRMED in text, "landing.py no longer lands the records read where this test says"
    landing.write_text(text.replace(LANDED_THEN_CONFIRMED, CONFIRMED_THEN_LANDED), encoding="utf-8")
    return folder


def first_failing(enumeration: Enumeration, events: list[str], order: Iterable[int]) -> Checked:
    for checked in enumeration.crash_points(events, order):
        print(f"killed {checked.killed_at}: checks {'passed' if checked.passed else 'failed'}", flush=True)
        if not checked.passed:
            return checked
    pytest.fail("no point's checks failed: the enumeration missed the broken order")


def test_apply_state_committed_before_its_targets_fails_the_checks_after_a_kill_between(tmp_path):
    project = a_project_that_commits_apply_state_first(tmp_path / "project")
    enumeration = Enumeration(tmp_path, "warm", project)
    enumeration.make_base()
    events = enumeration.count()
    commits = [event.rsplit("/", 3)[1] for event in events if " after delta-commit " in event]
    targets = [commits.index(path.stem) for path in (project / "models" / "apply" / "targets").glob("*.sql")]
    assert commits.index("apply_cycles") < min(targets), commits  # the copy's order is the broken one

    checked = first_failing(enumeration, events, reversed(points(events)))
    assert "targets differ from the oracle" in checked.output, checked.output


def test_the_slot_confirmed_before_the_records_land_fails_the_checks_after_a_kill_between(
    tmp_path, source_server
):
    project = a_project_that_confirms_the_slot_first(tmp_path / "project")
    enumeration = Enumeration(tmp_path, "postgresql", project)
    enumeration.make_base()
    events = enumeration.count()
    confirmed = next(n for n, event in enumerate(events) if " after slot-confirm " in event)
    landed = next(
        n for n, event in enumerate(events) if " after delta-commit " in event and "/source_log/" in event
    )
    assert confirmed < landed, events  # the copy's order is the broken one

    checked = first_failing(enumeration, events, points(events))
    assert "differs from the server" in checked.output, checked.output
