"""The lake's critical section (SPEC §6): one process at a time writes the lake.

Capture and Apply cycles, `lakerep refresh`, `lakerep mark-external-refresh` and `lakerep prune`
hold it while their dbt invocation runs, so they never overlap across processes. It is an
exclusive flock on locks/critical-section.flock under the lakerep home (not .lock: that suffix
is the session locks', and any session name may be taken); the kernel releases it when the
holder's process ends, however it ends, so a dead holder never blocks. The holder writes
{pid, host, since} into the file, for the message of a process that waited in vain.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

DEFAULT_TIMEOUT = 600.0  # seconds: longer than a cycle of the lake sizes lakerep is run with


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
    path = home / "locks" / "critical-section.flock"
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _acquire(descriptor, timeout)
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, json.dumps(holder).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(descriptor, 0)
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)


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
