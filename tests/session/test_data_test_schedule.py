"""The lake's data tests are kept to their TEST_INTERVAL from one run to the next
(lakerep.data_test_schedule): a pipeline of `lakerep run --once` does not pay for them in every run,
and every run whose lake, project or start is not what the last passed tests saw tests first. No
Spark here: the cycles are stand-ins, and so are the lake's answers (is that cycle still here, did
the start turn cold)."""

from __future__ import annotations

import json
import shutil

import pytest

from lakerep import PROJECT_DIR, data_test_schedule, session
from lakerep.session import CycleReport, SessionStart, run_session

NOW = 1_800_000_000.0


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEREP_HOME", str(tmp_path))
    return tmp_path


class Runs:
    """Runs with stand-in cycles: the dbt command of each cycle, in order."""

    def __init__(self, monkeypatch) -> None:
        self.commands: list[str] = []
        self.failing_builds = False
        self.recovering = False  # the next cycle finishes one an earlier run left cut off
        self.automatic_cold_start = False  # a warm start turns cold in the run's first cycle
        self.lake_cycles: set[tuple[str, int]] = set()  # the capture cycles the lake holds
        # a cycle after a recovery completes none (nothing landed): the lake's last is still the
        # recovered one
        self.nothing_after_recovery = False
        self.last: CycleReport | None = None
        monkeypatch.setattr(session, "_cycle", self.cycle)
        monkeypatch.setattr(session, "_nothing_landed_since", lambda last: False)
        monkeypatch.setattr(session, "_capture_cycle_in_lake", lambda *cycle: cycle in self.lake_cycles)
        monkeypatch.setattr(session, "_automatic_cold_start", lambda run_id: self.automatic_cold_start)
        monkeypatch.setattr(session, "_write_state_to_token_file", lambda session_name, path: None)
        monkeypatch.setattr(session, "locks_in_lake", lambda: False)

    def cycle(self, home, run_vars, dbt_args) -> CycleReport:
        self.commands.append(dbt_args[0])
        if dbt_args[0] == "build" and self.failing_builds:
            raise RuntimeError("a data test failed")
        if self.nothing_after_recovery and self.last is not None and self.last.recovered:
            assert len(self.commands) < 10, "the run never ends"
            return self.last
        number = len(self.commands)
        run_id = "earlier-run" if self.recovering else run_vars["lakerep_run_id"]
        self.recovering = False
        self.lake_cycles.add((run_id, number))
        self.last = CycleReport(number, run_id, run_id != run_vars["lakerep_run_id"], 0, 0, 0, None, None)
        return self.last

    def once(self, session_name: str = "s1", **start) -> list[str]:
        """One `lakerep run --once`: the dbt commands of its cycles (a recovery cycle, then its own)."""
        before = len(self.commands)
        run_session(SessionStart(session_name, once=True, **{"test_interval": 3600.0, **start}))
        return self.commands[before:]


def test_a_warm_run_after_one_whose_tests_passed_runs_the_models_only(home, monkeypatch):
    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]  # a session's first run
    assert runs.once() == ["run"]
    assert runs.once(start_type="warmns") == ["run"]
    assert runs.once(test_interval=0.0) == ["build"]  # 0: every cycle


def test_the_tests_come_again_once_test_interval_has_passed(home, monkeypatch):
    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]
    path = data_test_schedule.record_path(home)
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "passed_at": record["passed_at"] - 3601}))
    assert runs.once() == ["build"]
    assert runs.once() == ["run"]


@pytest.mark.parametrize(
    "start", [{"start_type": "cold"}, {"start_type": "recover"}], ids=["cold start", "recover"]
)
def test_a_start_that_is_not_warm_tests_first(home, monkeypatch, start):
    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]
    if start["start_type"] == "recover":
        start["token_file"] = home / "recover.tokens"
    assert runs.once(**start) == ["build"]


def test_a_token_file_tests_first(home, monkeypatch):
    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]
    tokens = home / "empty.tokens"
    tokens.write_text("<!-- no overrides\n")
    assert runs.once(token_file=tokens) == ["build"]


def test_a_test_cycle_that_failed_leaves_no_record_and_the_next_run_tests_first(home, monkeypatch):
    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]
    runs.failing_builds = True
    with pytest.raises(RuntimeError, match="a data test failed"):
        runs.once(test_interval=0.0)
    assert not data_test_schedule.record_path(home).exists()
    runs.failing_builds = False
    assert runs.once() == ["build"]


def test_a_changed_project_tests_first(home, monkeypatch):
    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]
    monkeypatch.setattr(data_test_schedule, "project_fingerprint", lambda: "another project")
    assert runs.once() == ["build"]
    assert runs.once() == ["run"]


def test_a_lake_without_the_cycle_that_passed_tests_first(home, monkeypatch):
    """The lake was reset or replaced since, here or on another machine."""
    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]
    runs.lake_cycles.clear()
    assert runs.once() == ["build"]


def test_models_only_and_capture_only_runs_record_nothing(home, monkeypatch):
    runs = Runs(monkeypatch)
    runs.once(dbt_command="run")
    assert runs.once(capture_only=True) == ["build"]  # a lake's first run tests what it builds
    assert not data_test_schedule.record_path(home).exists()
    assert runs.once() == ["build"]


def test_a_failed_capture_only_test_cycle_removes_the_record(home, monkeypatch):
    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]
    runs.failing_builds = True
    with pytest.raises(RuntimeError, match="a data test failed"):
        runs.once(capture_only=True, test_interval=0.0)
    runs.failing_builds = False
    assert runs.once() == ["build"]


def test_the_record_is_the_lakes_whichever_session_passed_the_tests(home, monkeypatch):
    """The data tests read the whole lake: another session's run carries on, and a failure of
    another session's test cycle makes this one's next run test first."""
    runs = Runs(monkeypatch)
    assert runs.once("s1") == ["build"]
    assert runs.once("s2") == ["run"]
    runs.failing_builds = True
    with pytest.raises(RuntimeError, match="a data test failed"):
        runs.once("s2", test_interval=0.0)
    runs.failing_builds = False
    assert runs.once("s1") == ["build"]


def test_a_run_that_finishes_a_cut_off_cycle_tests_with_its_own_first(home, monkeypatch):
    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]
    runs.recovering = True
    assert runs.once() == ["run", "build"]  # the recovery cycle, then the run's own, which tests
    assert runs.once() == ["run"]


def test_a_warm_start_that_turned_cold_removes_the_record(home, monkeypatch):
    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]
    runs.automatic_cold_start = True
    assert runs.once() == ["run"]  # its restart decision is made in the cycle: the next run tests
    runs.automatic_cold_start = False
    assert runs.once() == ["build"]
    assert runs.once() == ["run"]


def test_a_cluster_run_tests_with_its_first_cycle(home, monkeypatch):
    """Each runner of a cluster's lake has a home of its own, which would not see the others' tests."""
    runs = Runs(monkeypatch)
    monkeypatch.setattr(session, "locks_in_lake", lambda: True)
    assert runs.once() == ["build"]
    assert runs.once() == ["build"]


def test_refresh_markers_and_a_prune_remove_the_record(home, monkeypatch):
    """The next run tests first what they change, as before the interval was kept across runs."""
    from lakerep import apply_commands

    runs = Runs(monkeypatch)
    assert runs.once() == ["build"]
    assert apply_commands._mark_members([], "refresh") == []
    assert runs.once() == ["build"]

    def no_lake():
        raise RuntimeError("the prune reached the lake")

    monkeypatch.setattr("lakerep.lake.lake_session", no_lake)
    with pytest.raises(RuntimeError, match="the prune reached the lake"):
        apply_commands.prune()
    assert not data_test_schedule.record_path(home).exists()


def carried(home, *, in_lake=True, now=NOW):
    return data_test_schedule.carried_over(
        home, "fp", wall_now=now, monotonic_now=100.0, cycle_in_lake=lambda *cycle: in_lake
    )


def write_record(home, **record) -> None:
    path = data_test_schedule.record_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"passed_at": NOW - 60, "project": "fp", "run_id": "s1-r", "cycle_number": 3, **record})
    )


def test_a_record_is_carried_over_as_its_age_on_the_monotonic_clock(home):
    write_record(home)
    assert carried(home) == pytest.approx(40.0)


@pytest.mark.parametrize(
    "record",
    [
        {"project": "another"},
        {"passed_at": NOW + 60},  # the clock was set back since
        {"passed_at": "nan"},
        {"passed_at": "soon"},
        {"run_id": "s1' or '1'='1"},  # never put into SQL
        {"cycle_number": "three"},
        {"run_id": None},
    ],
    ids=["other project", "in the future", "nan", "not a number", "quoted run id", "bad cycle", "no run id"],
)
def test_a_record_that_does_not_fit_is_not_carried_over(home, record):
    write_record(home, **record)
    assert carried(home) is None


def test_no_record_an_unreadable_one_or_a_lake_without_its_cycle_is_not_carried_over(home):
    assert carried(home) is None
    data_test_schedule.record_path(home).parent.mkdir(parents=True)
    data_test_schedule.record_path(home).write_text("{not json")
    assert carried(home) is None
    write_record(home)
    assert carried(home, in_lake=False) is None


def test_the_fingerprint_follows_the_models_and_tests_not_the_rest(tmp_path):
    project = tmp_path / "project"
    for part in ("dbt_project.yml", "subscriptions.yml", "models", "macros", "data-tests", "lakerep"):
        source = PROJECT_DIR / part
        if source.is_dir():
            shutil.copytree(source, project / part)
        else:
            project.mkdir(exist_ok=True)
            shutil.copy(source, project / part)
    first = data_test_schedule.project_fingerprint(project)
    (project / "README.md").write_text("not part of the project's models")
    assert data_test_schedule.project_fingerprint(project) == first
    model = next((project / "models").rglob("*.sql"))
    model.write_text(model.read_text() + "\n-- edited\n")
    edited = data_test_schedule.project_fingerprint(project)
    assert edited != first
    (project / "lakerep" / "session.py").write_text("# another runner\n")
    assert data_test_schedule.project_fingerprint(project) != edited


def test_a_run_whose_own_cycle_completes_none_after_a_recovery_ends(home, monkeypatch):
    """A run finishes the cycle an earlier run left cut off, then runs its own, which has nothing
    to do and commits to no table: the lake's last cycle is still the recovered one. That is the
    run's own idle cycle, not one more recovery (the run went on finishing it for ever)."""
    runs = Runs(monkeypatch)
    runs.recovering = runs.nothing_after_recovery = True
    reports = run_session(SessionStart("s1", once=True, test_interval=3600.0))
    assert [(report.cycle_number, report.recovered, report.idle) for report in reports] == [
        (1, True, False),
        (1, False, True),
    ]
