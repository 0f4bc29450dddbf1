"""The lake's lock files under bad conditions: each is refused with one line naming the file or
folder, and nothing is taken over, truncated or lost. No Spark here: dbt or Spark starting fails
the test.

Before these checks: a lock file that could not be read was taken as corrupt and taken over, so
two runners ran; three contenders over a stale lock could leave two of them holding it; a
symbolic link planted as critical-section.flock had its target truncated; an unusable locks
folder was an OSError traceback; and `generate --fresh`, `demo` and reset_lake dropped the lake
under a running session.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from refusals import forbid_starting_anything, lakerep_command

from lakerep import lake
from lakerep import session_lock as session_lock_module
from lakerep.cli import EXIT_SESSION_LOCKED, EXIT_USER_ERROR
from lakerep.critical_section import critical_section
from lakerep.lake import reset_lake
from lakerep.session_lock import LockFileError, SessionActive, SessionLocked, refuse_if_active, session_lock

HOST = socket.gethostname()


@pytest.fixture(autouse=True)
def no_spark(monkeypatch):
    forbid_starting_anything(monkeypatch)


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEREP_HOME", str(tmp_path))
    return tmp_path


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def write_lock(home: Path, pid: int, session_name: str = "s1") -> Path:
    lock = home / "locks" / f"{session_name}.lock"
    lock.parent.mkdir(exist_ok=True)
    lock.write_text(json.dumps({"pid": pid, "host": HOST, "since": "2026-11-22T10:00:00Z"}), encoding="utf-8")
    return lock


# --- a lock file that cannot be read


@pytest.fixture
def unreadable_lock(home: Path, monkeypatch) -> Path:
    """s1's lock, as another user's lock file reads to this one: permission denied."""
    lock = write_lock(home, dead_pid())
    read_text = Path.read_text

    def denied(path: Path, *args, **kwargs):
        if path == lock:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return read_text(path, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", denied)
    return lock


def unreadable_message(lock: Path, reason: str) -> str:
    return (
        f"the lock file {lock} cannot be read ({reason}): it may be a running session's; "
        "check its owner and permissions, or remove it if no runner holds it"
    )


def test_a_lock_file_that_cannot_be_read_is_not_taken_over(unreadable_lock: Path, home: Path):
    before = unreadable_lock.read_bytes()
    with pytest.raises(LockFileError) as raised, session_lock(home, "s1"):
        pytest.fail("took over a lock it could not read")
    assert str(raised.value) == unreadable_message(unreadable_lock, "Permission denied")
    assert unreadable_lock.read_bytes() == before
    assert sorted(path.name for path in unreadable_lock.parent.iterdir()) == ["s1.lock"]


def test_a_lock_file_that_cannot_be_read_keeps_the_subscriptions_active(unreadable_lock: Path, home: Path):
    with pytest.raises(LockFileError) as raised:
        refuse_if_active(home)
    assert str(raised.value) == unreadable_message(unreadable_lock, "Permission denied")


def test_a_lock_file_that_cannot_be_read_is_one_line_from_the_cli(unreadable_lock: Path):
    result = lakerep_command("run", "--session", "s1", "--once")
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.splitlines() == [
        f"lakerep: {unreadable_message(unreadable_lock, 'Permission denied')}"
    ]


def test_a_folder_in_place_of_a_lock_file_is_left_alone(home: Path):
    lock = home / "locks" / "s1.lock"
    (lock / "inside").mkdir(parents=True)
    with pytest.raises(LockFileError) as raised, session_lock(home, "s1"):
        pytest.fail("took over a folder")
    assert str(raised.value) == unreadable_message(lock, "Is a directory")
    assert sorted(path.name for path in (home / "locks").iterdir()) == ["s1.lock"]
    assert (lock / "inside").is_dir()


# --- contenders over a stale lock


def contend(home: Path, ready, results, leave) -> None:
    """One runner starting: it reports whether it got the session, and holds it until told. It
    pauses a random moment where it judges a lock stale, as on a busy machine, so that the
    contenders interleave in ever different orders."""
    is_stale = session_lock_module._is_stale

    def slowly(holder: dict) -> bool:
        time.sleep(random.uniform(0, 0.01))
        return is_stale(holder)

    session_lock_module._is_stale = slowly
    ready.wait()
    try:
        with session_lock(home, "s1"):
            results.put("held")
            leave.wait(30)
    except SessionLocked:
        results.put("refused")
    except Exception as error:  # reported, so a failing contender fails the test
        results.put(f"failed: {error!r}")


@pytest.mark.parametrize("contenders", [3, 5])
def test_exactly_one_of_several_contenders_takes_a_stale_lock_over(home: Path, contenders: int):
    context = multiprocessing.get_context("fork")
    for _ in range(20):
        write_lock(home, dead_pid())
        ready, results, leave = context.Barrier(contenders), context.Queue(), context.Event()
        runners = [
            context.Process(target=contend, args=(home, ready, results, leave)) for _ in range(contenders)
        ]
        for runner in runners:
            runner.start()
        outcomes = sorted(results.get(timeout=30) for _ in runners)
        leave.set()
        for runner in runners:
            runner.join(30)
        assert outcomes == ["held"] + ["refused"] * (contenders - 1)
        assert sorted(path.name for path in (home / "locks").iterdir()) == []


def test_a_live_runners_lock_found_in_the_takeover_turn_is_kept(home: Path):
    lock = write_lock(home, os.getpid())
    with pytest.raises(SessionLocked, match=f"session s1 is already running \\(pid {os.getpid()}, host "):
        session_lock(home, "s1").__enter__()
    assert json.loads(lock.read_text(encoding="utf-8"))["pid"] == os.getpid()


# --- links planted as critical-section.flock


PRECIOUS = "a file the critical section must never write\n"


PLANTED = {
    "symbolic": "is a symbolic link: refusing to use it as the critical section's lock file; remove it "
    "(its target is left as it is)",
    "hard": "is not a plain file with one name: refusing to write the critical section's holder into it; "
    "remove it",
}


@pytest.mark.parametrize("link", PLANTED)
def test_a_link_planted_as_the_critical_sections_file_is_refused(home: Path, link: str):
    target = home / "precious.txt"
    target.write_text(PRECIOUS, encoding="utf-8")
    flock = home / "locks" / "critical-section.flock"
    flock.parent.mkdir()
    (os.symlink if link == "symbolic" else os.link)(target, flock)
    with pytest.raises(LockFileError) as raised, critical_section(home, timeout=0.1):
        pytest.fail("entered through a planted link")
    assert str(raised.value) == f"{flock} {PLANTED[link]}"
    assert target.read_text(encoding="utf-8") == PRECIOUS


def test_a_symbolic_link_planted_as_the_critical_sections_file_is_one_line_from_the_cli(home: Path):
    target = home / "precious.txt"
    target.write_text(PRECIOUS, encoding="utf-8")
    (home / "locks").mkdir()
    (home / "locks" / "critical-section.flock").symlink_to(target)
    result = lakerep_command("prune")
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.splitlines() == [
        f"lakerep: {home / 'locks' / 'critical-section.flock'} {PLANTED['symbolic']}"
    ]
    assert target.read_text(encoding="utf-8") == PRECIOUS


def test_the_critical_sections_file_is_never_truncated(home: Path):
    """A holder overwrites its record in place and blanks it when it leaves: the file keeps its
    size, so nothing of a file it was given in error is cut off either."""
    with critical_section(home):
        flock = home / "locks" / "critical-section.flock"
        assert json.loads(flock.read_text(encoding="utf-8"))["pid"] == os.getpid()
        size = flock.stat().st_size
    assert flock.stat().st_size == size
    assert flock.read_text(encoding="utf-8").strip() == ""


# --- an unusable locks folder


@pytest.fixture
def locks_not_writable(home: Path, monkeypatch) -> Path:
    """The locks folder as one this user may not write into: creating a file in it is refused."""
    locks = home / "locks"
    locks.mkdir()
    real_open = os.open

    def refusing(path, flags, *args, **kwargs):
        if Path(path).parent == locks and flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing)
    return locks


def test_a_locks_folder_that_cannot_be_written_is_one_line(locks_not_writable: Path, home: Path):
    with pytest.raises(LockFileError) as raised, session_lock(home, "s1"):
        pytest.fail("took a lock in a folder it cannot write")
    assert str(raised.value) == f"cannot write a lock file in {locks_not_writable}: Permission denied"
    with pytest.raises(LockFileError) as raised, critical_section(home, timeout=0.1):
        pytest.fail("entered the critical section without its file")
    assert (
        str(raised.value) == f"cannot open {locks_not_writable / 'critical-section.flock'}: Permission denied"
    )
    result = lakerep_command("run", "--session", "s1", "--once")
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.splitlines() == [
        f"lakerep: cannot write a lock file in {locks_not_writable}: Permission denied"
    ]
    assert list(locks_not_writable.iterdir()) == []


@pytest.mark.parametrize(
    "command", [["run", "--session", "s1", "--once"], ["prune"], ["generate", "--fresh"]], ids=lambda c: c[0]
)
def test_a_file_in_place_of_the_locks_folder_is_one_line(home: Path, command: list[str]):
    (home / "locks").write_text("not a folder\n", encoding="utf-8")
    result = lakerep_command(*command)
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.splitlines() in (
        [f"lakerep: the locks folder {home / 'locks'} cannot be created: File exists"],
        [f"lakerep: the locks folder {home / 'locks'} cannot be read: Not a directory"],
    )
    assert (home / "locks").read_text(encoding="utf-8") == "not a folder\n"


# --- commands that start the lake afresh


def test_reset_lake_is_refused_while_a_session_runs(home: Path):
    with session_lock(home, "s1"), pytest.raises(SessionActive, match="session s1 is running"):
        reset_lake()


@pytest.mark.parametrize("command", [["generate", "--fresh"], ["demo"]], ids=lambda c: c[0])
def test_commands_that_start_the_lake_afresh_are_refused_while_a_session_runs(home: Path, command: list[str]):
    with session_lock(home, "s1"):
        result = lakerep_command(*command)
    assert result.exit_code == EXIT_SESSION_LOCKED
    assert len(result.output.splitlines()) == 1
    assert result.output.startswith(
        f"lakerep: subscription is active: session s1 is running (pid {os.getpid()}, "
    )


class EmptyLake:
    """A SparkSession with no lakerep schema, for reset_lake without Spark."""

    def sql(self, statement: str):
        return self

    def collect(self) -> list:
        return []


def test_a_dead_runners_lock_does_not_hold_back_a_reset(home: Path, monkeypatch):
    write_lock(home, dead_pid())
    sessions = []

    def empty_lake() -> EmptyLake:
        sessions.append(EmptyLake())
        return sessions[-1]

    monkeypatch.setattr(lake, "lake_session", empty_lake)
    reset_lake()
    assert len(sessions) == 2  # before the drops, and after them for the landing tables
