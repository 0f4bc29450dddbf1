"""The lake's critical section (SPEC §6): one process at a time writes the lake.

Capture and Apply cycles, `lakerep refresh`, `lakerep mark-external-refresh` and `lakerep prune`
hold it while their dbt invocation runs, so they never overlap across processes. It is an
exclusive flock on locks/critical-section.flock under the lakerep home (not .lock: that suffix
is the session locks', and any session name may be taken); the kernel releases it when the
holder's process ends, however it ends, so a dead holder never blocks. The holder writes
{pid, host, since} into the file, for the message of a process that waited in vain, padded to a
fixed width over the last holder's, and blanks it when it leaves: the file is never truncated.
It is opened without following a symbolic link and used only if it is a plain file with no
other name, so a link planted in its place is refused (LockFileError) and its target left whole.
A thread inside the section enters it again at once: a command whose steps each take it (demo's
reset, then its cycles) does not wait for itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from lakerep.durable import durable_step
from lakerep.session_lock import LockFileError, locks_folder

DEFAULT_TIMEOUT = 600.0  # seconds: longer than a cycle of the lake sizes lakerep is run with
_RECORD_WIDTH = 512  # bytes of the holder record: {pid, host, since}, padded with spaces
_held: set[tuple[Path, int]] = set()  # the sections this process is inside, and in which thread


class CriticalSectionBusy(RuntimeError):
    """Another process held the critical section for longer than we would wait."""

    def __init__(self, waited: float, holder: dict | None) -> None:
        holder = holder or {}
        super().__init__(
            f"the lake's critical section is held by another process (pid {holder.get('pid', '?')}, "
            f"host {holder.get('host', '?')}, since {holder.get('since', '?')}); gave up after "
            f"{waited:,.0f} s: try again when it has finished"
        )


@contextmanager
def critical_section(home: Path, *, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    """Hold the critical section for the body of the with statement, waiting up to `timeout`
    seconds for it; CriticalSectionBusy names the holder if it stays taken."""
    path = locks_folder(home).absolute() / "critical-section.flock"
    held = (path, threading.get_ident())
    if held in _held:
        yield
        return
    descriptor = _open(path)
    try:
        _acquire(descriptor, timeout)
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        with durable_step(f"file-write {path}"):
            os.pwrite(descriptor, json.dumps(holder).encode().ljust(_RECORD_WIDTH), 0)
        _held.add(held)
        try:
            yield
        finally:
            _held.discard(held)
            with durable_step(f"file-write {path}"):
                os.pwrite(descriptor, b" " * _RECORD_WIDTH, 0)
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)


def _open(path: Path) -> int:
    """The flock file, opened for reading and writing, created if need be; LockFileError if it
    cannot be, or if it is a symbolic link, or no plain file, or a name of a file that has others:
    writing the holder record would change what it names."""
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as error:
        if os.path.islink(path):
            raise LockFileError(
                f"{path} is a symbolic link: refusing to use it as the critical section's lock file; "
                "remove it (its target is left as it is)"
            ) from None
        raise LockFileError(f"cannot open {path}: {error.strerror}") from None
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode) or status.st_nlink != 1:
        os.close(descriptor)
        raise LockFileError(
            f"{path} is not a plain file with one name: refusing to write the critical section's "
            "holder into it; remove it"
        )
    return descriptor


def _acquire(descriptor: int, timeout: float) -> None:
    started = time.monotonic()
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            waited = time.monotonic() - started
            if waited >= timeout:
                raise CriticalSectionBusy(waited, _holder(descriptor)) from None
            time.sleep(min(0.1, timeout - waited))


def _holder(descriptor: int) -> dict | None:
    """What the holder wrote: {pid, host, since}; None if it cannot be read (yet)."""
    with contextlib.suppress(OSError, ValueError):
        holder = json.loads(os.pread(descriptor, 4096, 0) or b"null")
        return holder if isinstance(holder, dict) else None
    return None
