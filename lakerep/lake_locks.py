"""Locks that live in the lake, for runners that reach it only through a Spark cluster.

Runners of the `cluster` output may run on different machines, sharing nothing but the cluster:
a lock file on one runner's disk, or the pid of a process there, means nothing to another. So the
session locks and the lake's critical section (SPEC §6) are leases, rows of the Delta table
lakerep_locks.leases, one per held lock: {name, holder, pid, host, since, expires}.

Why it is safe:
- **One winner.** A lock is taken by one MERGE that inserts its row where there is none, or
  replaces one whose lease has ended. Delta commits a table's versions one at a time (each version
  file is created only if absent), and the table is `Serializable`: of two MERGEs that read the
  same version, the second to commit fails with a concurrent-modification error instead of
  committing over the first. The taker then reads the row back and holds the lock only if the row
  names it.
- **One clock.** Every time compared (since, expires, now) is the Spark server's
  `current_timestamp()`, never a runner's own clock, so runners whose clocks differ agree.
- **Dead holders.** A holder renews its leases every RENEW_SECONDS from a thread of its own (on
  a Spark Connect session of its own), to LEASE_SECONDS ahead. A runner that dies, or loses its
  way to the cluster, stops renewing; its leases end LEASE_SECONDS later, and others may take
  them. A holder whose renewal finds its row gone or taken has lost the lock: it stops at the end
  of its cycle (LeaseLost) rather than write on.
- **One thread.** A lease row names its holder process, so a process's threads are told apart in
  the process: one thread at a time holds a lease (another is refused the session, or waits for
  the critical section), as with the file locks, and a lease's row is released before another
  thread of the process may take it.

Every lease write replaces the table's one small file, so a runner's renewals leave thousands of
old files and log entries a day. The table keeps an hour of old files and a day of log (no reader
of a lease reads an older version), and a holder vacuums it every TIDY_SECONDS, in a thread
that its renewal thread starts.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from lakerep.critical_section import DEFAULT_TIMEOUT, CriticalSectionBusy
from lakerep.session_lock import SessionActive, SessionLocked, check_session_name

LEASES_SCHEMA = "lakerep_locks"  # never dropped by reset_lake: it holds the reset's own lease
LEASES_TABLE = f"{LEASES_SCHEMA}.leases"
LEASE_SECONDS = 60
RENEW_SECONDS = 15
CRITICAL_SECTION = "critical-section"
_SESSION_PREFIX = "session:"
_COMMIT_ATTEMPTS = 20
_LEASE_END = f"current_timestamp() + interval {LEASE_SECONDS} seconds"
TIDY_SECONDS = 3600
_TABLE_PROPERTIES = {
    "delta.isolationLevel": "Serializable",
    "delta.deletedFileRetentionDuration": "interval 1 hours",
    "delta.logRetentionDuration": "interval 1 days",
}

# Delta's errors for a commit that another beat to the version it read (DELTA_CONCURRENT_APPEND,
# ..._DELETE_READ, METADATA_CHANGED, ...), and a table two runners created at once.
_RETRYABLE = re.compile(r"concurrent|METADATA_CHANGED|PROTOCOL_CHANGED|ALREADY_EXISTS", re.IGNORECASE)
# A lease not renewed for this long may have ended, or be about to, without its holder knowing.
_TRUST_SECONDS = LEASE_SECONDS - RENEW_SECONDS

HOLDER = uuid.uuid4().hex  # this process, in every lease it takes
_held: dict[str, int] = {}  # the lease names this process holds or is taking, and by which thread
_unsettled: set[str] = set()  # of those, the ones reserved and not taken yet, or being released
_generation: dict[str, int] = {}  # each name's latest reservation: a renewal leaves one made meanwhile alone
_reservations = itertools.count()
_renewed_at: dict[str, float] = {}  # when each held lease was last taken or renewed (monotonic)
_lost: set[str] = set()
_guard = threading.Lock()
_renewer: threading.Thread | None = None
_table_ready = False


class LeaseLost(RuntimeError):
    """A lease this process held was found taken or gone, or could not be renewed in time."""


def _spark():
    from pyspark.sql import SparkSession

    return SparkSession.builder.getOrCreate()


def ensure_leases_table(spark) -> None:
    """Create the leases table where there is none, or give one made by an earlier lakerep the
    properties it lacks (once per process: `reset_lake` keeps it)."""
    global _table_ready
    if _table_ready:
        return
    properties = ", ".join(f"'{key}' = '{value}'" for key, value in _TABLE_PROPERTIES.items())
    _commit(spark, f"create schema if not exists {LEASES_SCHEMA}")
    _commit(
        spark,
        f"create table if not exists {LEASES_TABLE} (name string not null, holder string not null, "
        f"pid int, host string, since timestamp, expires timestamp) using delta tblproperties ({properties})",
    )
    found = {row["key"]: row["value"] for row in spark.sql(f"show tblproperties {LEASES_TABLE}").collect()}
    if any(found.get(key) != value for key, value in _TABLE_PROPERTIES.items()):
        _commit(spark, f"alter table {LEASES_TABLE} set tblproperties ({properties})")
    _table_ready = True


def tidy(spark) -> None:
    """Delete the leases table's files that no version within its retention needs (VACUUM, by
    the table's own deletedFileRetentionDuration); Delta drops old log entries at checkpoints."""
    spark.sql(f"vacuum {LEASES_TABLE}").collect()


def _holder_record(row) -> dict:
    return {
        "pid": row["pid"],
        "host": row["host"],
        "since": str(row["since"]),
        "expires": str(row["expires"]),
    }


def leases(spark, prefix: str = "") -> dict[str, tuple[dict, bool]]:
    """Each lease whose name starts with `prefix`: its holder record and whether it is live (its
    lease has not ended by the server's clock)."""
    ensure_leases_table(spark)
    rows = spark.sql(f"select *, expires > current_timestamp() as live from {LEASES_TABLE}").collect()
    return {
        row["name"]: (_holder_record(row), bool(row["live"]))
        for row in rows
        if row["name"].startswith(prefix)
    }


def _string(value: str) -> str:
    """A SQL string literal of `value`, whatever it holds (a host name is not ours to choose):
    its UTF-8 bytes in hex. (Spark Connect leaves named parameters of commands unbound.)"""
    return f"decode(unhex('{value.encode().hex()}'), 'UTF-8')"


def _commit(spark, sql: str) -> None:
    """Run one write to the leases table, again while another commit beat it to the version it
    read (Delta's concurrent-modification errors); any other error is raised."""
    for attempt in range(_COMMIT_ATTEMPTS):
        try:
            spark.sql(sql).collect()
            return
        except Exception as error:
            if not _RETRYABLE.search(str(error)):
                raise
            time.sleep(0.05 * (attempt + 1))
    raise RuntimeError(f"could not commit to {LEASES_TABLE}: {_COMMIT_ATTEMPTS} concurrent commits in a row")


def try_take(spark, name: str, holder_id: str = HOLDER) -> tuple[bool, dict | None]:
    """Take the lease `name` for `holder_id` (this process) if no live lease holds it: (taken,
    the holder record if not). For this process, the calling thread reserves the name first
    (`_reserve`): while another of its threads holds it, no row is written for this one."""
    ensure_leases_table(spark)
    ours = holder_id == HOLDER  # tests stand for other runners with other holder ids
    if ours and not _reserve(name):
        row = _lease_row(spark, name)
        return False, _holder_record(row) if row is not None else None
    taken = False
    try:
        row = _lease_row(spark, name)
        if row is None or not row["live"]:
            holder, host = _string(holder_id), _string(socket.gethostname())
            _commit(
                spark,
                f"merge into {LEASES_TABLE} as lease using (select {_string(name)} as name) as wanted "
                "on lease.name = wanted.name "
                "when matched and lease.expires <= current_timestamp() then update set "
                f"holder = {holder}, pid = {os.getpid()}, host = {host}, since = current_timestamp(), "
                f"expires = {_LEASE_END} "
                "when not matched then insert (name, holder, pid, host, since, expires) values "
                f"({_string(name)}, {holder}, {os.getpid()}, {host}, current_timestamp(), {_LEASE_END})",
            )
            row = _lease_row(spark, name)  # the MERGE's winner, ours or another's
        taken = row is not None and row["holder"] == holder_id
    finally:
        if ours:
            (_settle if taken else _unreserve)(name)
    return (True, None) if taken else (False, _holder_record(row) if row is not None else None)


def _reserve(name: str) -> bool:
    """Reserve lease `name` for the calling thread, unless another thread of this process holds
    or is taking it: a lease of this process is held by one thread at a time (another waits or
    is refused, as with the file locks)."""
    thread = threading.get_ident()
    with _guard:
        if _held.setdefault(name, thread) != thread:
            return False
        _unsettled.add(name)  # renewals and check_leases leave it alone until it is taken
        _generation[name] = next(_reservations)
    return True


def _settle(name: str) -> None:
    """The reserved lease `name` is taken: renewed and checked from now on."""
    with _guard:
        _unsettled.discard(name)
        _renewed_at[name] = time.monotonic()
        _lost.discard(name)


def _unreserve(name: str) -> None:
    """The calling thread's reservation or hold of `name` ends (not taken, or released)."""
    with _guard:
        if _held.get(name) == threading.get_ident():
            _held.pop(name, None)
            _unsettled.discard(name)
            _renewed_at.pop(name, None)
            _lost.discard(name)


def _lease_row(spark, name: str):
    """The lease row of `name` with `live` (not ended by the server's clock), or None."""
    rows = spark.sql(
        f"select *, expires > current_timestamp() as live from {LEASES_TABLE} where name = {_string(name)}"
    ).collect()
    return rows[0] if rows else None


def _release(spark, name: str) -> None:
    _commit(
        spark,
        f"delete from {LEASES_TABLE} where name = {_string(name)} and holder = {_string(HOLDER)}",
    )


@contextmanager
def _holding(name: str, take) -> Iterator[None]:
    """Hold lease `name` (taken by `take`, re-entered by the thread that holds it) for the body,
    renewed meanwhile; released on the way out."""
    thread = threading.get_ident()
    if _held.get(name) == thread:
        yield
        return
    check_leases()  # a runner that lost its session's lease takes no critical section
    spark = _spark()
    take(spark)  # reserves the lease for this thread (try_take)
    try:
        _start_renewer()
        yield
        check_leases([name])  # the body's writes were made without the lease: say so
    finally:
        with _guard:
            _unsettled.add(name)  # being released: renewals leave it alone
        try:
            _release(spark, name)
        finally:  # only now may another thread of this process take it, and find no row of ours
            _unreserve(name)


def check_leases(names: list[str] | None = None) -> None:
    """LeaseLost if a lease this process holds (of `names`, by default any) was found taken or
    gone when it was renewed, or has not been renewed for longer than it can be trusted to last."""
    now = time.monotonic()
    with _guard:
        lost = sorted(
            name
            for name in (list(_held) if names is None else names)
            if name in _held
            and name not in _unsettled
            and (name in _lost or now - _renewed_at.get(name, now) > _TRUST_SECONDS)
        )
    if lost:
        raise LeaseLost(
            f"the lease {lost[0]!r} in {LEASES_TABLE} was taken or removed while this runner held it, "
            f"or could not be renewed within {_TRUST_SECONDS} s: stopping"
        )


@contextmanager
def session_lock(session: str) -> Iterator[None]:
    """The session's lease for the body; SessionLocked if another runner's lease is live."""
    check_session_name(session)
    name = _SESSION_PREFIX + session

    def take(spark) -> None:
        taken, holder = try_take(spark, name)
        if not taken:
            raise SessionLocked(session, holder)

    with _holding(name, take):
        yield


@contextmanager
def critical_section(*, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    """The lake's critical section for the body, waiting up to `timeout` seconds for it."""

    def take(spark) -> None:
        started = time.monotonic()
        while True:
            taken, holder = try_take(spark, CRITICAL_SECTION)
            if taken:
                return
            waited = time.monotonic() - started
            if waited >= timeout:
                raise CriticalSectionBusy(waited, holder)
            time.sleep(min(1.0, timeout - waited))

    with _holding(CRITICAL_SECTION, take):
        yield


def session_locks() -> dict[str, tuple[dict | None, bool]]:
    """Each session's lease: its holder record and whether it is live."""
    return {
        name.removeprefix(_SESSION_PREFIX): lease for name, lease in leases(_spark(), _SESSION_PREFIX).items()
    }


def refuse_if_active() -> None:
    """SessionActive naming a session whose lease is live."""
    for session, (holder, live) in session_locks().items():
        if live:
            raise SessionActive(session, holder)


def _start_renewer() -> None:
    global _renewer
    with _guard:
        if _renewer is not None and _renewer.is_alive():
            return
        _renewer = threading.Thread(target=_renew_forever, name="lakerep-lease-renewer", daemon=True)
        _renewer.start()


def _renew_forever() -> None:
    """Every RENEW_SECONDS, renew this process's leases (`renew`); every TIDY_SECONDS, start a
    vacuum of the table (`tidy`) in a thread of its own, so that a long vacuum never holds up a
    renewal."""
    spark = None
    last_tidy = time.monotonic()
    while True:
        time.sleep(RENEW_SECONDS)
        # A failure (the cluster unreachable) leaves the leases unrenewed: check_leases stops the
        # holder once they can no longer be trusted; the next round tries again.
        with contextlib.suppress(Exception):
            if spark is None:
                spark = _session_of_its_own()
            renew(spark)
        if time.monotonic() - last_tidy >= TIDY_SECONDS:
            last_tidy = time.monotonic()
            threading.Thread(target=_tidy_quietly, name="lakerep-lease-tidy", daemon=True).start()


def _session_of_its_own():
    """On a cluster, a Spark Connect session for a thread's own statements, so that they never
    wait behind a cycle's (an embedded session serves threads side by side)."""
    from pyspark.sql import SparkSession

    remote = os.environ.get("SPARK_REMOTE")
    return SparkSession.builder.remote(remote).create() if remote else _spark()


def _tidy_quietly() -> None:
    """`tidy` in a session of its own, closed after it (a Connect session a vacuum left open
    would stay on the server until it timed out, one more every hour); a failure (the cluster
    unreachable) only leaves the files for the next hour."""
    with contextlib.suppress(Exception):
        spark = _session_of_its_own()
        try:
            tidy(spark)
        finally:
            if os.environ.get("SPARK_REMOTE"):  # never the embedded session, which the runner uses
                spark.stop()


def renew(spark) -> None:
    """Extend every lease this process holds to LEASE_SECONDS from now; mark those found taken or
    gone as lost (check_leases)."""
    with _guard:  # the leases taken, each with its reservation
        names = {name: _generation.get(name) for name in _held if name not in _unsettled}
    if not names:
        return
    started = time.monotonic()
    held = ", ".join(_string(name) for name in names)
    _commit(
        spark,
        f"update {LEASES_TABLE} set expires = {_LEASE_END} "
        f"where holder = {_string(HOLDER)} and name in ({held})",
    )
    kept = {
        row["name"]
        for row in spark.sql(f"select name from {LEASES_TABLE} where holder = {_string(HOLDER)}").collect()
    }
    with _guard:
        for name, generation in names.items():
            if name not in _held or name in _unsettled or _generation.get(name) != generation:
                continue  # released, or taken again, while the renewal ran
            if name in kept:
                _renewed_at[name] = max(_renewed_at.get(name, started), started)
            else:
                _lost.add(name)
