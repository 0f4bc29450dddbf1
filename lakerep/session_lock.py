"""One runner per CDC session: a lock file under the lakerep home, held while the session runs.

The lock is locks/<session>.lock holding JSON {pid, host, since, started}. It appears with its
content in one step (written to a temporary file, then hard-linked into place, which fails if the
lock exists), so a reader never sees a half-written lock. A lock left by a process of this host
that is gone (its pid free, or used by a process that started at another time), or one that is not
such a record, is taken over; a live process, or one on another host, keeps it. A lock file that
cannot be read at all (another user's) is never taken over: it may be a live runner's
(LockFileError). Contenders take a lock over one at a time, each under an flock of the locks
folder itself, looking at the lock again once they hold it: the first replaces the stale lock with
its own, the others find a live runner's. While any session's lock is kept, the subscriptions are
active (refuse_if_active): refresh, mark-external-refresh and prune wait for the runner to stop.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from lakerep.durable import durable_step

_SESSION_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,63}")


class SessionLocked(RuntimeError):
    """The session's lock is held by another runner."""

    def __init__(self, session: str, holder: dict | None) -> None:
        holder = holder or {}
        self.session = session
        self.pid = holder.get("pid")
        self.host = holder.get("host")
        self.since = holder.get("since")
        super().__init__(
            f"session {session} is already running (pid {self.pid or '?'}, host {self.host or '?'}, "
            f"since {self.since or '?'}): stop it first, or wait for it to finish"
        )


class LockFileError(RuntimeError):
    """A file or folder under locks/ cannot be read, written or trusted; str names it and why."""


class SessionActive(RuntimeError):
    """A live runner holds a session, so the subscriptions are active (SPEC §5)."""

    def __init__(self, session: str, holder: dict) -> None:
        self.session = session
        super().__init__(
            f"subscription is active: session {session} is running (pid {holder['pid']}, "
            f"host {holder['host']}, since {holder['since']}): stop it first"
        )


class LakeInUse(RuntimeError):
    """The embedded lake is open in a live runner: its Derby metastore admits one process."""

    def __init__(self, session: str, holder: dict) -> None:
        self.session = session
        super().__init__(
            f"the embedded lake is open in the runner of session {session} (pid {holder['pid']}, "
            f"host {holder['host']}, since {holder['since']}): its metastore admits one process, "
            "so run this once the runner has stopped"
        )


def refuse_if_active(home: Path, refusal: type[RuntimeError] = SessionActive) -> None:
    """`refusal` (SessionActive, or LakeInUse) naming a session whose lock a live runner holds (a
    dead runner's lock does not count); nothing if none does."""
    for session, (holder, alive) in session_locks(home).items():
        if alive:
            raise refusal(session, holder)


def session_locks(home: Path) -> dict[str, tuple[dict | None, bool]]:
    """Each session's lock: its holder record (None if it is no lock record) and whether a live
    runner holds it (a lock of another host counts as live: its process cannot be checked)."""
    found = {}
    for lock in _lock_files(home / "locks"):
        session = lock.name.removesuffix(".lock")
        if _SESSION_NAME.fullmatch(session):
            holder = _holder(_read(lock) or "")
            found[session] = (holder, holder is not None and not _is_stale(holder))
    return found


@contextmanager
def session_lock(home: Path, session: str) -> Iterator[None]:
    """Hold the session's lock for the body of the with statement; SessionLocked if another holds it."""
    check_session_name(session)
    locks_folder(home)
    lock = lock_path(home, session)
    content = lock_record(os.getpid())
    if not _create(lock, content):
        with _takeover_turn(lock.parent):
            _remove_if_stale(lock, session)
            if not _create(lock, content):
                raise SessionLocked(session, _holder(_read(lock) or ""))
    try:
        yield
    finally:
        if _read(lock) == content:
            with contextlib.suppress(FileNotFoundError), durable_step(f"file-remove {lock}"):
                lock.unlink()


def check_session_name(session: str) -> None:
    """ValueError unless `session` is a valid session name (it names a lock file, or a lease)."""
    if not _SESSION_NAME.fullmatch(session):
        raise ValueError(
            f"session name {session!r} is not valid: it may hold letters, digits, _ and - "
            "(up to 64, not starting with -)"
        )


def lock_path(home: Path, session: str) -> Path:
    return home / "locks" / f"{session}.lock"


def locks_folder(home: Path) -> Path:
    """home/locks, created if need be; LockFileError if it cannot be."""
    locks = home / "locks"
    try:
        locks.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise LockFileError(f"the locks folder {locks} cannot be created: {error.strerror}") from None
    return locks


def _lock_files(locks: Path) -> list[Path]:
    """The session lock files in the locks folder (none if there is no folder); LockFileError if
    it cannot be listed, since a runner's lock may be in it."""
    try:
        names = os.listdir(locks)
    except FileNotFoundError:
        return []
    except OSError as error:
        raise LockFileError(f"the locks folder {locks} cannot be read: {error.strerror}") from None
    return [locks / name for name in sorted(names) if name.endswith(".lock")]


def lock_record(pid: int) -> str:
    """A lock's content: the holding process of this host, when it started (process_start), and
    since when it holds the lock."""
    record = {
        "pid": pid,
        "host": socket.gethostname(),
        "since": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    started = process_start(pid)
    if started is not None:
        record["started"] = started
    return json.dumps(record)


def process_start(pid: int) -> str | None:
    """Which process `pid` is: the kernel's boot id and the process's start time in clock ticks
    since boot (/proc/PID/stat, field 22), so that a pid used again by another process (a
    container restarted, whose runner is pid 1 again) is told from the lock's holder. None where
    /proc does not say (no such process, another system)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
        return f"{boot}:{stat[stat.rindex(')') + 2 :].split()[19]}"  # fields from 3 on follow the name
    except (OSError, ValueError, IndexError):
        return None


def _create(lock: Path, content: str) -> bool:
    """Put a lock file holding content in place, unless one exists; True if ours is in place."""
    temporary = lock.with_name(f".{lock.name}.{secrets.token_hex(4)}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with open(descriptor, "w", encoding="utf-8") as out:
            out.write(content)
        with durable_step(f"file-write {lock}"):
            os.link(temporary, lock)
        return True
    except FileExistsError:
        return False
    except OSError as error:
        raise LockFileError(f"cannot write a lock file in {lock.parent}: {error.strerror}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def _read(lock: Path) -> str | None:
    """The lock file's text; None if there is none, "" if it is not text. LockFileError if it
    cannot be read: it may be a live runner's lock all the same."""
    try:
        return lock.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        return ""
    except OSError as error:
        raise LockFileError(
            f"the lock file {lock} cannot be read ({error.strerror}): it may be a running session's; "
            "check its owner and permissions, or remove it if no runner holds it"
        ) from None


def _holder(text: str) -> dict | None:
    """The lock's {pid, host, since}; None if it is not such a record."""
    try:
        holder = json.loads(text)
    except ValueError:
        return None
    if not isinstance(holder, dict) or type(holder.get("pid")) is not int or not 0 < holder["pid"] < 2**31:
        return None
    if not isinstance(holder.get("host"), str) or not isinstance(holder.get("since"), str):
        return None
    if not isinstance(holder.get("started", ""), str):
        return None
    return holder


def _is_stale(holder: dict) -> bool:
    """True if the holder was a process of this host that no longer runs: its pid is gone, or
    taken by a process that started at another time (a lock of an older lakerep has no start)."""
    if holder["host"] != socket.gethostname():
        return False
    try:
        os.kill(holder["pid"], 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        pass
    started = process_start(holder["pid"])
    return "started" in holder and started is not None and started != holder["started"]


@contextmanager
def _takeover_turn(locks: Path) -> Iterator[None]:
    """Hold the flock that lets one contender at a time look at a lock it could not create and
    take it over: an flock of the locks folder, so no file is added that could be planted or
    removed; the kernel frees it if the holder dies."""
    try:
        descriptor = os.open(locks, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise LockFileError(f"the locks folder {locks} cannot be opened: {error.strerror}") from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def _remove_if_stale(lock: Path, session: str) -> None:
    """Remove the lock file if a dead runner of this host left it, or it is no lock record;
    SessionLocked if a live runner holds it. Called in the takeover turn: no one else replaces a
    lock meanwhile (a new one appears only where none is; its holder removes only its own)."""
    text = _read(lock)
    if text is None:
        return
    holder = _holder(text)
    if holder is not None and not _is_stale(holder):
        raise SessionLocked(session, holder)
    try:
        with durable_step(f"file-remove {lock}"):
            lock.unlink(missing_ok=True)
    except OSError as error:
        raise LockFileError(f"the stale lock file {lock} cannot be removed: {error.strerror}") from None
