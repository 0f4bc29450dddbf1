"""`lakerep refresh`, `mark-external-refresh` and `prune` refuse bad options and active subscriptions
before Spark starts; the lake's critical section admits one process and outlives no dead holder;
a run's first cycle prunes when the lake's prune is due, a continuous run's later ones every
PRUNE_INTERVAL. No Spark here: the checks the lake makes (lakerep_mark_refresh) need a built
lake."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakerep import session
from lakerep.cli import EXIT_SESSION_LOCKED, EXIT_USER_ERROR, main
from lakerep.critical_section import CriticalSectionBusy, critical_section
from lakerep.session import CycleReport, SessionStart, prune_due, run_session
from lakerep.session_lock import SessionActive, refuse_if_active, session_lock

START = "00000000000000010000"
END = "00000000000000011250"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEREP_HOME", str(tmp_path))
    return tmp_path


def lakerep(*args: str):
    return CliRunner().invoke(main, list(args))


def write_lock(home: Path, session_name: str, pid: int, host: str | None = None) -> None:
    (home / "locks").mkdir(exist_ok=True)
    holder = {"pid": pid, "host": host or socket.gethostname(), "since": "2026-11-22T10:00:00Z"}
    (home / "locks" / f"{session_name}.lock").write_text(json.dumps(holder), encoding="utf-8")


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ([], "give exactly one of --start POS --end POS, --unload-start, --unload-end"),
        (["--unload-start", "--unload-end"], "give exactly one of"),
        (["--start", START, "--end", END, "--unload-end"], "give exactly one of"),
        (["--start", START], "--start and --end go together (missing --end)"),
        (["--end", END], "--start and --end go together (missing --start)"),
        (
            ["--start", "0000000000000001000G", "--end", END],
            "--start 0000000000000001000G is not a log position",
        ),
        (["--start", START, "--end", "1125"], "--end 1125 is not a log position: 20 hex digits"),
        (["--start", END, "--end", START], f"--start {END} is after --end {START}"),
    ],
    ids=[
        "none",
        "both-unloads",
        "window-and-unload",
        "no-end",
        "no-start",
        "not-hex",
        "too-short",
        "backwards",
    ],
)
def test_mark_external_refresh_options_are_checked(home, options, message):
    result = lakerep("mark-external-refresh", "--member", "customers_copy", *options)
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.startswith("lakerep: ")
    assert message in result.output
    assert not (home / "locks").exists()  # refused before touching the lake


@pytest.mark.parametrize(
    "command",
    [
        ["refresh"],
        ["mark-external-refresh", "--unload-start"],
        ["mark-external-refresh", "--start", START, "--end", END],
    ],
    ids=["refresh", "unload-start", "window"],
)
def test_a_target_that_is_no_member_is_refused(home, command):
    result = lakerep(*command, "--member", "nope")
    assert result.exit_code == EXIT_USER_ERROR
    assert "no member of subscriptions.yml has the target nope (members: customers_copy, " in result.output


def test_naming_several_members_checks_every_name_before_writing(home):
    result = lakerep("refresh", "--member", "customers_copy", "--member", "nope")
    assert result.exit_code == EXIT_USER_ERROR
    assert "no member of subscriptions.yml has the target nope" in result.output
    assert not (home / "locks").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["refresh", "--member", "stock_copy"],
        ["mark-external-refresh", "--member", "stock_copy", "--start", START, "--end", END],
        ["mark-external-refresh", "--member", "stock_copy", "--unload-end"],
        ["prune"],
    ],
    ids=["refresh", "mark-window", "mark-unload-end", "prune"],
)
def test_commands_are_refused_while_a_session_runs(home, command):
    write_lock(home, "nightly", os.getpid())
    result = lakerep(*command)
    assert result.exit_code == EXIT_SESSION_LOCKED
    assert result.output.strip() == (
        f"lakerep: subscription is active: session nightly is running (pid {os.getpid()}, "
        f"host {socket.gethostname()}, since 2026-11-22T10:00:00Z): stop it first"
    )


def test_diff_is_refused_while_a_runner_has_the_embedded_lake_open(home):
    """Its metastore admits one process: a diff would fail in Spark's start-up instead."""
    write_lock(home, "nightly", os.getpid())
    result = lakerep("diff")
    assert result.exit_code == EXIT_SESSION_LOCKED
    assert result.output.strip() == (
        f"lakerep: the embedded lake is open in the runner of session nightly (pid {os.getpid()}, "
        f"host {socket.gethostname()}, since 2026-11-22T10:00:00Z): its metastore admits one process, "
        "so run this once the runner has stopped"
    )


def test_only_live_runners_make_a_subscription_active(home):
    refuse_if_active(home)  # no locks folder yet
    write_lock(home, "gone", dead_pid())
    (home / "locks" / "broken.lock").write_text("{not json", encoding="utf-8")
    with critical_section(home):  # its file is no session lock
        refuse_if_active(home)
    write_lock(home, "remote", dead_pid(), host="elsewhere")  # another host's pid cannot be checked
    with pytest.raises(SessionActive, match=r"session remote is running \(pid \d+, host elsewhere"):
        refuse_if_active(home)


def test_a_runner_holding_its_session_lock_is_active(home):
    with session_lock(home, "s1"), pytest.raises(SessionActive, match="session s1 is running"):
        refuse_if_active(home)
    refuse_if_active(home)


HOLDER = """
import sys, time
from pathlib import Path
from lakerep.critical_section import critical_section
with critical_section(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


def test_critical_section_admits_one_process_and_a_killed_holder_frees_it(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(CriticalSectionBusy) as busy, critical_section(tmp_path, timeout=0.5):
            pytest.fail("entered a critical section another process holds")
        assert f"held by another process (pid {holder.pid}, host {socket.gethostname()}, since " in str(
            busy.value
        )
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with critical_section(tmp_path, timeout=0.5):  # the kernel released the dead holder's lock
        assert json.loads((tmp_path / "locks" / "critical-section.flock").read_text())["pid"] == os.getpid()


def test_critical_section_waits_for_the_holder_to_leave(tmp_path):
    entered, leave = threading.Event(), threading.Event()
    order = []

    def hold() -> None:
        with critical_section(tmp_path):
            entered.set()
            leave.wait(5)
            order.append("holder leaves")

    thread = threading.Thread(target=hold)
    thread.start()
    assert entered.wait(5)
    with pytest.raises(CriticalSectionBusy), critical_section(tmp_path, timeout=0.2):
        pytest.fail("two holders at once")
    threading.Timer(0.3, leave.set).start()
    with critical_section(tmp_path, timeout=5):  # waits for the holder, then enters
        order.append("waiter enters")
    thread.join()
    assert order == ["holder leaves", "waiter enters"]


def test_critical_section_is_released_when_the_body_fails(tmp_path):
    with pytest.raises(KeyError), critical_section(tmp_path):
        raise KeyError("boom")
    with critical_section(tmp_path, timeout=0.1):
        pass


def test_prune_due():
    assert not prune_due(now=100.0, last_prune=0.0, interval=300)
    assert prune_due(now=300.0, last_prune=0.0, interval=300)
    assert prune_due(now=1000.0, last_prune=600.0, interval=300)
    assert prune_due(now=5.0, last_prune=5.0, interval=0)


@pytest.mark.parametrize(
    ("once", "capture_only", "prune_interval", "expected"),
    [
        # the first cycle when the lake's prune is due, then every cycle
        (False, False, 0.0, ["due", True, True]),
        (False, False, 3600.0, ["due", False, False]),  # the interval has not passed
        (True, False, 0.0, ["due"]),  # --once: when the lake's prune is due
        # the prune follows Apply's progress, which --capture-only does not make: it waits for a full run
        (False, True, 0.0, [False, False, False]),
    ],
    ids=["interval-0", "interval-1h", "once", "capture-only"],
)
def test_a_continuous_run_prunes_every_prune_interval(
    home, monkeypatch, once, capture_only, prune_interval, expected
):
    prune_vars = []

    def fake_cycle(cycle_home, run_vars, dbt_args):
        assert cycle_home == home
        prune_vars.append(run_vars["lakerep_prune"])
        if len(prune_vars) == 3:
            os.kill(os.getpid(), signal.SIGTERM)  # stop: this cycle finishes, then the run ends
        return CycleReport(len(prune_vars), run_vars["lakerep_run_id"], False, 0, 0, 0, None, None)

    monkeypatch.setattr(session, "_cycle", fake_cycle)
    monkeypatch.setattr(session, "_nothing_landed_since", lambda last: False)
    start = SessionStart(
        "s1", once=once, commit_interval=0, prune_interval=prune_interval, capture_only=capture_only
    )
    run_session(start)
    assert prune_vars == expected


def test_a_session_runs_its_data_tests_with_its_first_cycle_then_every_test_interval(home, monkeypatch):
    commands = []

    def fake_cycle(cycle_home, run_vars, dbt_args):
        commands.append(dbt_args[0])
        if len(commands) == 3:
            os.kill(os.getpid(), signal.SIGTERM)
        return CycleReport(len(commands), run_vars["lakerep_run_id"], False, 0, 0, 0, None, None)

    monkeypatch.setattr(session, "_cycle", fake_cycle)
    monkeypatch.setattr(session, "_nothing_landed_since", lambda last: False)
    run_session(SessionStart("s1", commit_interval=0, prune_interval=3600.0, test_interval=3600.0))
    assert commands == ["build", "run", "run"]


def test_cycles_with_nothing_landed_run_no_dbt(home, monkeypatch):
    dbt_cycles = []
    idle_checks = iter([True, True, True])

    def fake_cycle(cycle_home, run_vars, dbt_args):
        dbt_cycles.append(run_vars["lakerep_prune"])
        return CycleReport(len(dbt_cycles), run_vars["lakerep_run_id"], False, 0, 0, 0, None, None)

    def progress(line):
        if "idle" in line and len(lines) == 2:
            os.kill(os.getpid(), signal.SIGTERM)
        lines.append(line)

    lines: list[str] = []
    monkeypatch.setattr(session, "_cycle", fake_cycle)
    monkeypatch.setattr(session, "_nothing_landed_since", lambda last: next(idle_checks))
    run_session(SessionStart("s1", commit_interval=0, prune_interval=3600.0), progress=progress)
    assert dbt_cycles == ["due"]  # the first cycle only: the next ones found nothing landed
    assert [line.split(":")[1].strip() for line in lines] == [
        "0 records read, 0 row changes, 0 UOWs committed; synchpoint none; lag n/a; data tests passed",
        "idle, nothing landed since batch 0; synchpoint none",
        "idle, nothing landed since batch 0; synchpoint none",
    ]
