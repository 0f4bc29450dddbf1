"""The session lock: one runner per CDC session, and a lock left by a dead runner is taken over."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from lakerep.session_lock import SessionLocked, process_start, session_lock


def lock_file(home: Path, session: str = "s1") -> Path:
    return home / "locks" / f"{session}.lock"


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_acquire_and_release(tmp_path: Path):
    with session_lock(tmp_path, "s1"):
        holder = json.loads(lock_file(tmp_path).read_text())
        assert holder["pid"] == os.getpid()
        assert holder["host"] == socket.gethostname()
        assert holder["since"].endswith("Z")
        assert holder["started"] == process_start(os.getpid())
    assert not lock_file(tmp_path).exists()
    assert list((tmp_path / "locks").iterdir()) == []  # no temporary file left
    with session_lock(tmp_path, "s1"):  # free again
        pass


def test_released_when_the_body_fails(tmp_path: Path):
    with pytest.raises(KeyError), session_lock(tmp_path, "s1"):
        raise KeyError("boom")
    assert not lock_file(tmp_path).exists()


def test_second_runner_is_refused_while_held(tmp_path: Path):
    with session_lock(tmp_path, "s1"):
        with pytest.raises(SessionLocked) as raised, session_lock(tmp_path, "s1"):
            pytest.fail("acquired a held lock")
        message = str(raised.value)
        assert message.startswith("session s1 is already running (pid ")
        assert f"pid {os.getpid()}, host {socket.gethostname()}, since " in message
        assert message.endswith("): stop it first, or wait for it to finish")
        assert lock_file(tmp_path).exists()  # the refused runner left the lock alone
        with session_lock(tmp_path, "s2"):  # another session is independent
            pass
    assert not lock_file(tmp_path).exists()


def test_lock_of_another_host_is_respected(tmp_path: Path):
    lock_file(tmp_path).parent.mkdir()
    lock_file(tmp_path).write_text(
        json.dumps({"pid": dead_pid(), "host": "elsewhere", "since": "2026-11-22T10:00:00Z"})
    )
    refused = pytest.raises(SessionLocked, match=r"host elsewhere, since 2026-11-22T10:00:00Z\)")
    with refused, session_lock(tmp_path, "s1"):
        pytest.fail("took over the lock of another host")
    assert json.loads(lock_file(tmp_path).read_text())["host"] == "elsewhere"


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path: Path):
    lock_file(tmp_path).parent.mkdir()
    lock_file(tmp_path).write_text(
        json.dumps({"pid": dead_pid(), "host": socket.gethostname(), "since": "2026-11-22T10:00:00Z"})
    )
    with session_lock(tmp_path, "s1"):
        assert json.loads(lock_file(tmp_path).read_text())["pid"] == os.getpid()
    assert not lock_file(tmp_path).exists()
    assert list((tmp_path / "locks").iterdir()) == []


def write_holder(home: Path, **record) -> None:
    lock_file(home).parent.mkdir()
    lock_file(home).write_text(
        json.dumps(
            {"pid": os.getpid(), "host": socket.gethostname(), "since": "2026-11-22T10:00:00Z", **record}
        )
    )


def test_a_lock_whose_pid_another_process_now_has_is_taken_over(tmp_path: Path):
    """A container restarted: its new runner has the dead one's pid (pid 1, say), on the same host."""
    write_holder(tmp_path, started=f"{process_start(os.getpid())}0")  # the same pid, started another time
    with session_lock(tmp_path, "s1"):
        assert json.loads(lock_file(tmp_path).read_text())["started"] == process_start(os.getpid())


def test_a_live_holder_is_kept_whether_its_lock_says_when_it_started_or_not(tmp_path: Path):
    """A lock of an older lakerep has no start: its pid alone says the holder runs."""
    write_holder(tmp_path, started=process_start(os.getpid()))
    with pytest.raises(SessionLocked), session_lock(tmp_path, "s1"):
        pytest.fail("took over a live runner's lock")
    lock_file(tmp_path).unlink()
    lock_file(tmp_path).parent.rmdir()
    write_holder(tmp_path)
    with pytest.raises(SessionLocked), session_lock(tmp_path, "s1"):
        pytest.fail("took over a live runner's lock")


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "",
        "[1, 2]",
        '{"pid": "12", "host": "h", "since": "s"}',
        '{"pid": 0, "host": "h"}',
        '{"pid": 9223372036854775808, "host": "h", "since": "s"}',
        '{"pid": 12, "host": "h", "since": "s", "started": 5}',
    ],
    ids=[
        "broken-json",
        "empty",
        "not-an-object",
        "pid-not-a-number",
        "pid-zero",
        "pid-too-large",
        "started-not-text",
    ],
)
def test_corrupt_lock_file_is_taken_over(tmp_path: Path, content: str):
    lock_file(tmp_path).parent.mkdir()
    lock_file(tmp_path).write_text(content)
    with session_lock(tmp_path, "s1"):
        assert json.loads(lock_file(tmp_path).read_text())["pid"] == os.getpid()
    assert not lock_file(tmp_path).exists()


def test_lock_replaced_meanwhile_is_not_removed_on_exit(tmp_path: Path):
    other = json.dumps({"pid": 1, "host": "elsewhere", "since": "2026-11-22T10:00:00Z"})
    with session_lock(tmp_path, "s1"):
        lock_file(tmp_path).write_text(other)
    assert lock_file(tmp_path).read_text() == other


@pytest.mark.parametrize(
    "session",
    ["", "-s1", "s 1", "s/1", "../s1", "s.1", "s1\n", "x" * 65],
    ids=["empty", "leading-dash", "space", "slash", "dot-dot", "dot", "newline", "too-long"],
)
def test_bad_session_name_is_rejected(tmp_path: Path, session: str):
    with pytest.raises(ValueError, match="may hold letters, digits, _ and -"):
        session_lock(tmp_path, session).__enter__()
    assert not (tmp_path / "locks").exists()


@pytest.mark.parametrize("session", ["_", "S1", "nightly_sales-2", "x" * 64])
def test_good_session_names(tmp_path: Path, session: str):
    with session_lock(tmp_path, session):
        assert lock_file(tmp_path, session).exists()
