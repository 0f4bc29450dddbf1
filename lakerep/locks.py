"""Where the runner's locks live, decided in one place: lock files under the lakerep home for
the embedded lake (lakerep.session_lock, lakerep.critical_section), leases in the lake for a
cluster, whose runners may run on different machines (lakerep.lake_locks, ADR 0010). The
choice follows the profile's active output: a Spark Connect output (`cluster`) keeps them in the
lake."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from lakerep import critical_section as file_critical_section
from lakerep import lake_locks
from lakerep import session_lock as file_session_lock
from lakerep.profile import connect_url
from lakerep.session_lock import LakeInUse


def locks_in_lake() -> bool:
    return connect_url() is not None


def session_lock(home: Path, session: str) -> AbstractContextManager[None]:
    """Hold the session's lock; SessionLocked if another runner holds it."""
    if locks_in_lake():
        return lake_locks.session_lock(session)
    return file_session_lock.session_lock(home, session)


def critical_section(home: Path, **options) -> AbstractContextManager[None]:
    """Hold the lake's critical section (SPEC §6), waiting for it (CriticalSectionBusy)."""
    if locks_in_lake():
        return lake_locks.critical_section(**options)
    return file_critical_section.critical_section(home, **options)


def refuse_if_active(home: Path) -> None:
    """SessionActive naming a session a live runner holds."""
    if locks_in_lake():
        lake_locks.refuse_if_active()
    else:
        file_session_lock.refuse_if_active(home)


def session_locks(home: Path) -> dict[str, tuple[dict | None, bool]]:
    """Each session's lock: its holder record and whether a live runner holds it."""
    if locks_in_lake():
        return lake_locks.session_locks()
    return file_session_lock.session_locks(home)


def refuse_if_lake_open(home: Path) -> None:
    """LakeInUse naming a live runner of the embedded lake, whose metastore admits one process (a
    read-only command would fail in Spark's start-up instead); nothing on a cluster."""
    if not locks_in_lake():
        file_session_lock.refuse_if_active(home, LakeInUse)
