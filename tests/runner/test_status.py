"""`lakerep status` without Spark: sessions come from their locks and the cycle files the runner
writes, so a running session is shown while it holds the lake; the lake's sources and sets are
read only when no runner holds it (the embedded metastore admits one process). The lake's part
is tested on the demo's lake (tests/runner/test_demo.py)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys

import pytest
from click.testing import CliRunner

from lakerep import data_test_schedule, session
from lakerep.cli import EXIT_SET_NEEDS_ATTENTION, main
from lakerep.session import CycleReport, SessionStart, run_session
from lakerep.status import cycle_file, lines, status


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEREP_HOME", str(tmp_path))
    return tmp_path


def write_lock(home, session_name: str, pid: int) -> None:
    (home / "locks").mkdir(exist_ok=True)
    record = {"pid": pid, "host": socket.gethostname(), "since": "2026-11-26T10:00:00Z"}
    (home / "locks" / f"{session_name}.lock").write_text(json.dumps(record))


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_runner_records_each_cycle_for_status(home, monkeypatch):
    def fake_cycle(cycle_home, run_vars, dbt_args):
        os.kill(os.getpid(), signal.SIGTERM)  # stop after this cycle
        return CycleReport(7, run_vars["lakerep_run_id"], False, 120, 90, 30, "0" * 19 + "9", 2.5)

    monkeypatch.setattr(session, "_cycle", fake_cycle)
    run_session(SessionStart("s1", commit_interval=0, prune_interval=3600.0))
    recorded = json.loads(cycle_file(home, "s1").read_text())
    assert (recorded["cycle_number"], recorded["records_read"], recorded["lag_seconds"]) == (7, 120, 2.5)
    assert recorded["pid"] == os.getpid()
    assert not list(cycle_file(home, "s1").parent.glob(".*.tmp"))  # written aside, then renamed


def test_a_running_session_is_shown_from_its_lock_and_the_lake_is_left_to_its_runner(home):
    write_lock(home, "live", os.getpid())
    write_lock(home, "gone", dead_pid())
    result = status(home)  # would start Spark if it read the lake
    by_name = {entry["session"]: entry for entry in result["sessions"]}
    assert by_name["live"]["running"] and by_name["live"]["runner"]["pid"] == os.getpid()
    assert not by_name["gone"]["running"] and by_name["gone"]["stale_lock"]
    assert result["sources"] is None and result["sets"] is None
    assert f"open in the runner of session live (pid {os.getpid()}" in result["lake"]
    text = "\n".join(lines(result))
    assert f"session live: running (pid {os.getpid()}, host {socket.gethostname()}" in text
    assert "session gone: stopped (a dead runner's lock is left" in text


def test_status_shows_the_last_cycle_and_its_lag(home):
    write_lock(home, "s1", os.getpid())
    report = CycleReport(12, "s1-run", False, 40, 30, 10, "00000000000000000042", 3.25)
    session_file = cycle_file(home, "s1")
    session_file.parent.mkdir()
    session_file.write_text(json.dumps({**report.__dict__, "written_at": "2026-11-26T11:00:00Z", "pid": 1}))
    (home / "status" / "broken.json").write_text("{not json")
    data_test_schedule.remember(home, "fp", passed_at=1_795_000_000.0, run_id="s1-run", cycle_number=11)
    text = "\n".join(lines(status(home)))
    assert "last cycle 12 at 2026-11-26T11:00:00Z: synchpoint 00000000000000000042, lag 3.2 s" in text
    assert "lake: data tests last passed at 2026-11-18T11:06:40Z" in text
    assert "session broken: stopped; cycle file unreadable" in text


def test_status_json_and_exit_code(home, monkeypatch):
    from lakerep import status as status_module

    def lake(spark, relation_name):
        return {
            "sources": [],
            "sets": [
                {"apply_qual": "A", "set_name": "S1", "status": "APPLIED", "description": None},
                {"apply_qual": "A", "set_name": "S2", "status": "GAP", "description": "t needs a refresh"},
            ],
        }

    monkeypatch.setattr(status_module, "lake_status", lake)
    monkeypatch.setattr("lakerep.lake.lake_session", lambda: None)
    monkeypatch.setattr("lakerep.summary.relation_name", lambda model: model)
    result = CliRunner().invoke(main, ["status", "--json"])
    assert result.exit_code == EXIT_SET_NEEDS_ATTENTION, result.output
    printed = json.loads(result.stdout)
    assert printed["attention"] == ["set A.S2 is GAP: t needs a refresh"]
    assert [entry["status"] for entry in printed["sets"]] == ["APPLIED", "GAP"]


def test_on_a_cluster_the_lake_is_read_while_a_runner_runs(home, monkeypatch):
    """Its Connect server serves every client: a STOPPED set is shown, and the exit code says so."""
    from lakerep import status as status_module

    runner = {"pid": 4242, "host": "machine-a", "since": "2026-11-28T10:00:00Z"}
    monkeypatch.setattr(status_module, "locks_in_lake", lambda: True)
    monkeypatch.setattr(status_module, "session_locks", lambda home: {"s1": (runner, True)})
    sets = [
        {
            "apply_qual": "A",
            "set_name": "S1",
            "status": "STOPPED",
            "description": "a failed member",
            "apply_cycle": 9,
            "synchpoint": None,
            "pending_members": [],
            "exceptions": 1,
        }
    ]
    monkeypatch.setattr(
        status_module, "lake_status", lambda spark, relation_name: {"sources": [], "sets": sets}
    )
    monkeypatch.setattr("lakerep.lake.lake_session", lambda: None)
    monkeypatch.setattr("lakerep.summary.relation_name", lambda model: model)
    result = status(home)
    assert result["lake"] is None and result["sets"] == sets
    assert result["attention"] == ["set A.S1 is STOPPED: a failed member"]
    assert "session s1: running (pid 4242, host machine-a" in "\n".join(lines(result))


def test_an_unexpected_error_is_a_crash_never_a_failed_test(home, monkeypatch):
    """Exit 2 (as dbt's crash) with its traceback and a line naming it: exit 1 says a model or data
    test failed, and a ValueError of lakerep's own would say the user erred."""
    from lakerep import status as status_module
    from lakerep.cli import EXIT_CRASHED

    def broken(home):
        raise KeyError("a column the manifest lacks")

    monkeypatch.setattr(status_module, "status", broken)
    result = CliRunner().invoke(main, ["status"])
    assert result.exit_code == EXIT_CRASHED == 2
    assert "Traceback (most recent call last)" in result.stderr
    assert result.stderr.strip().endswith("lakerep: crashed: KeyError: 'a column the manifest lacks'")


def test_status_says_what_the_lake_holds_of_its_slot_and_what_waits():
    """Issue 62, items 1 and 7: a cold start owed after a new slot was taken, and the Debezium
    transactions that wait out of the log, each in one line."""
    slot = {"slot": "lakerep", "system_identifier": "7301", "confirmed_lsn": 0x16E0_0000,
            "cold_start_from": "0000000016E000000000"}  # fmt: skip
    waiting = [
        {"transaction_id": "566", "end_landed": True, "events_expected": 3, "events_landed": 1,
         "changes_landed": 1, "first_batch": 4},
        {"transaction_id": "570", "end_landed": False, "events_expected": None, "events_landed": None,
         "changes_landed": 2, "first_batch": 5},
    ]  # fmt: skip
    result = {"sessions": [], "sources": [], "sets": [], "lake": None, "slot": slot,
              "waiting_transactions": waiting}  # fmt: skip
    text = "\n".join(lines(result))
    assert (
        "PostgreSQL slot lakerep (server 7301): confirmed up to 0/16E00000; a cold start is owed from "
        "0000000016E000000000: the next run starts cold, every member of the source in a gap"
    ) in text
    assert (
        "Debezium transaction 566 waits, out of the log: 1 of the 3 events its END counts have landed; "
        "first landed in batch 4"
    ) in text
    assert (
        "Debezium transaction 570 waits, out of the log: its END has not landed (2 change events have)"
        in text
    )


def test_status_shows_the_schema_history_and_a_stopped_table_needs_attention(monkeypatch, tmp_path):
    """Issue 63: each change of a registered table's columns is a line; an unsafe one stops its
    table, and status says what to do (and exits non-zero)."""
    from lakerep import status as status_module

    changes = [
        {"source_owner": "SALES", "source_table": "CUSTOMERS", "log_position": "00000000016E00000000",
         "change_kind": "add_column", "column_name": "tier", "type_after": "int", "column_default": "3",
         "detail": "added tier integer"},
        {"source_owner": "SALES", "source_table": "ORDERS", "log_position": "00000000017000000000",
         "change_kind": "unsafe", "column_name": None, "type_after": None, "column_default": None,
         "detail": "dropped note and added remark in one change (a rename?)"},
    ]  # fmt: skip
    monkeypatch.setattr(
        status_module, "lake_status",
        lambda spark, relation_name: {"sources": [], "sets": [], "schema_changes": changes},
    )  # fmt: skip
    monkeypatch.setattr("lakerep.lake.lake_session", lambda: None)
    result = status_module.status(tmp_path)
    assert result["attention"] == [
        "SALES.ORDERS stopped at 00000000017000000000 by a change of its columns: dropped note and added "
        "remark in one change (a rename?)"
    ]
    text = "\n".join(lines(result))
    assert (
        "schema change of SALES.CUSTOMERS at 00000000016E00000000: added tier integer (rows before it: 3)"
        in text
    )
    assert "schema change of SALES.ORDERS at 00000000017000000000: dropped note" in text
    assert "register it again, then refresh its members" in text
