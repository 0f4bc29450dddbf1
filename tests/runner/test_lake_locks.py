"""Locks held in the lake (lakerep.lake_locks, ADR 0010), on the embedded lake: what runners on
different machines use when they share only a cluster. Another runner is a row of another holder
in the leases table, as its process would have written it."""

from __future__ import annotations

import os
import threading
import time
import uuid
from pathlib import Path

import pytest

from lakerep import lake_locks
from lakerep.critical_section import CriticalSectionBusy
from lakerep.lake_locks import LEASES_TABLE, LeaseLost
from lakerep.session_lock import SessionActive, SessionLocked


@pytest.fixture
def leases(spark):
    lake_locks.ensure_leases_table(spark)
    write(spark, f"delete from {LEASES_TABLE}")
    yield spark
    write(spark, f"delete from {LEASES_TABLE}")


def write(spark, sql: str) -> None:
    """A write of the test's own, retried like the runner's when its lease renewals (a thread of
    this process, every 15 s) commit to the table at the same moment."""
    lake_locks._commit(spark, sql)


def another_runner_holds(spark, name: str, *, ends_in_seconds: int) -> None:
    write(
        spark,
        f"insert into {LEASES_TABLE} values ('{name}', 'elsewhere', 4242, 'other-host', "
        f"current_timestamp(), current_timestamp() + interval {ends_in_seconds} seconds)",
    )


def held_names(spark) -> set[str]:
    return {row["name"] for row in spark.sql(f"select name from {LEASES_TABLE}").collect()}


def test_a_session_lease_is_held_while_the_session_runs_and_released_after(leases):
    with lake_locks.session_lock("alpha"):
        assert held_names(leases) == {"session:alpha"}
        with pytest.raises(SessionActive, match="session alpha is running"):
            lake_locks.refuse_if_active()
    assert held_names(leases) == set()
    lake_locks.refuse_if_active()


def test_a_live_lease_of_another_machine_refuses_the_session(leases):
    another_runner_holds(leases, "session:alpha", ends_in_seconds=60)
    with pytest.raises(SessionLocked, match="pid 4242, host other-host"), lake_locks.session_lock("alpha"):
        pass
    with pytest.raises(SessionActive, match="session alpha is running"):
        lake_locks.refuse_if_active()


def test_a_lease_that_ended_is_taken_over(leases):
    another_runner_holds(leases, "session:alpha", ends_in_seconds=-1)  # its runner stopped renewing
    lake_locks.refuse_if_active()  # an ended lease is no running session
    with lake_locks.session_lock("alpha"):
        holder = leases.sql(f"select holder from {LEASES_TABLE}").collect()[0]["holder"]
        assert holder == lake_locks.HOLDER


def test_the_critical_section_waits_then_names_its_holder(leases):
    another_runner_holds(leases, "critical-section", ends_in_seconds=60)
    with (
        pytest.raises(CriticalSectionBusy, match="pid 4242, host other-host"),
        lake_locks.critical_section(timeout=2),
    ):
        pass


def test_the_critical_section_is_entered_again_by_its_holder(leases):
    with lake_locks.critical_section(), lake_locks.critical_section(timeout=0):
        assert held_names(leases) == {"critical-section"}
    assert held_names(leases) == set()


def test_a_lease_one_thread_holds_is_not_taken_by_another_thread_of_the_process(leases, monkeypatch):
    """As with the file locks: a second thread is refused the session, and the critical section
    until its holder leaves; it then enters, with a row of its own (the holder's release is slowed
    down, so a waiter let in before the release ended would find its row deleted under it)."""
    entered, leave = threading.Event(), threading.Event()
    moments: dict[str, float] = {}
    release = lake_locks._release

    def slow_release(spark, name: str) -> None:
        time.sleep(2)
        release(spark, name)

    monkeypatch.setattr(lake_locks, "_release", slow_release)

    def hold() -> None:
        with lake_locks.session_lock("alpha"), lake_locks.critical_section():
            entered.set()
            leave.wait(120)
            moments["left"] = time.monotonic()

    def wait_for_the_section() -> None:
        with lake_locks.critical_section(timeout=120):
            moments["entered"] = time.monotonic()
            time.sleep(3)  # past any release of the holder's still under way
            moments["rows then"] = held_names(leases)  # its own row, not one its holder deleted

    holder = threading.Thread(target=hold)
    holder.start()
    waiter = threading.Thread(target=wait_for_the_section)
    try:
        assert entered.wait(120)
        with pytest.raises(SessionLocked, match=f"pid {os.getpid()}"), lake_locks.session_lock("alpha"):
            pass
        with (
            pytest.raises(CriticalSectionBusy, match=f"pid {os.getpid()}"),
            lake_locks.critical_section(timeout=1),
        ):
            pass
        assert held_names(leases) == {"session:alpha", "critical-section"}
        waiter.start()
        time.sleep(2)  # the waiter tries, and waits
        assert "entered" not in moments
    finally:
        leave.set()
        holder.join()
        if waiter.ident is not None:
            waiter.join()
    assert moments["entered"] > moments["left"]
    assert "critical-section" in moments["rows then"]
    assert held_names(leases) == set()


def race(spark, contenders: list[str]) -> dict[str, bool]:
    """Each contender takes the lease `session:race` at once, from a thread of its own."""
    won: dict[str, bool] = {}
    barrier = threading.Barrier(len(contenders))

    def take(holder: str) -> None:
        barrier.wait()
        won[holder] = lake_locks.try_take(spark, "session:race", holder)[0]

    threads = [threading.Thread(target=take, args=(holder,)) for holder in contenders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return won


def test_of_runners_taking_one_lease_at_once_exactly_one_wins(leases):
    for _ in range(3):
        write(leases, f"delete from {LEASES_TABLE}")
        won = race(leases, [uuid.uuid4().hex for _ in range(2)])
        assert sorted(won.values()) == [False, True], won
        winner = next(holder for holder, taken in won.items() if taken)
        rows = leases.sql(f"select holder from {LEASES_TABLE} where name = 'session:race'").collect()
        assert [row["holder"] for row in rows] == [winner]


def test_a_lease_found_taken_when_renewed_is_lost_and_no_critical_section_follows(leases):
    with (
        pytest.raises(LeaseLost, match="session:alpha"),
        lake_locks.session_lock("alpha"),
    ):  # said at its end too
        lake_locks.renew(leases)
        lake_locks.check_leases()  # renewed, still ours
        write(leases, f"delete from {LEASES_TABLE} where name = 'session:alpha'")  # taken over, say
        another_runner_holds(leases, "session:alpha", ends_in_seconds=60)
        lake_locks.renew(leases)
        with pytest.raises(LeaseLost, match="session:alpha"):
            lake_locks.check_leases()
        with pytest.raises(LeaseLost), lake_locks.critical_section():
            pass


def test_a_lease_not_renewed_in_time_is_no_longer_trusted(leases, monkeypatch):
    with lake_locks.session_lock("alpha"):
        lake_locks.check_leases()
        # No renewal succeeded for longer than a lease can be trusted (the cluster unreachable).
        monkeypatch.setattr(lake_locks, "_TRUST_SECONDS", -1.0)
        with pytest.raises(LeaseLost, match="could not be renewed within"):
            lake_locks.check_leases()
        monkeypatch.undo()


def test_a_critical_section_lost_during_its_body_is_reported_on_the_way_out(leases):
    with pytest.raises(LeaseLost, match="critical-section"), lake_locks.critical_section():
        write(leases, f"delete from {LEASES_TABLE} where name = 'critical-section'")
        another_runner_holds(leases, "critical-section", ends_in_seconds=60)
        lake_locks.renew(leases)
    assert held_names(leases) == {"critical-section"}  # the other runner's, left alone


def test_a_reset_keeps_the_leases(leases):
    from lakerep.lake import reset_lake

    another_runner_holds(leases, "session:kept", ends_in_seconds=-1)  # an ended lease: no refusal
    reset_lake()
    assert held_names(leases) == {"session:kept"}


def table_properties(spark) -> dict[str, str]:
    return {row["key"]: row["value"] for row in spark.sql(f"show tblproperties {LEASES_TABLE}").collect()}


def test_a_leases_table_of_an_earlier_lakerep_gets_its_retention(leases, monkeypatch):
    write(leases, f"alter table {LEASES_TABLE} unset tblproperties ('delta.deletedFileRetentionDuration')")
    monkeypatch.setattr(lake_locks, "_table_ready", False)  # a new process
    lake_locks.ensure_leases_table(leases)
    assert table_properties(leases)["delta.deletedFileRetentionDuration"] == "interval 1 hours"
    assert table_properties(leases)["delta.logRetentionDuration"] == "interval 1 days"


def set_file_retention(spark, interval: str) -> None:
    write(
        spark,
        f"alter table {LEASES_TABLE} set tblproperties ('delta.deletedFileRetentionDuration' = '{interval}')",
    )


def test_tidy_deletes_the_files_of_old_lease_versions(leases):
    for _ in range(3):
        with lake_locks.session_lock("tidy"):
            pass
    detail = leases.sql(f"describe detail {LEASES_TABLE}").collect()[0]
    location = Path(detail["location"].removeprefix("file:"))

    def data_files() -> int:
        return sum(1 for _ in location.glob("*.parquet"))

    def live_files() -> int:
        return leases.sql(f"describe detail {LEASES_TABLE}").collect()[0]["numFiles"]

    assert data_files() > live_files()
    set_file_retention(leases, "interval 0 hours")  # the table's hour made instant, for the test
    try:
        lake_locks.tidy(leases)
        assert data_files() == live_files()
    finally:
        set_file_retention(leases, "interval 1 hours")


class RecordingSession:
    """A session that records the statements it is sent, and whether it was stopped."""

    def __init__(self, fails: bool = False) -> None:
        self.sent: list[str] = []
        self.stopped = False
        self.fails = fails

    def sql(self, statement: str):
        self.sent.append(statement)
        if self.fails:
            raise ConnectionError("the cluster is unreachable")
        return self

    def collect(self) -> list:
        return []

    def stop(self) -> None:
        self.stopped = True


@pytest.mark.parametrize("fails", [False, True], ids=["vacuumed", "vacuum failed"])
@pytest.mark.parametrize("remote", [None, "sc://cluster:15002"], ids=["embedded", "cluster"])
def test_the_hourly_vacuum_closes_a_connect_session_of_its_own_and_never_the_embedded_one(
    monkeypatch, remote, fails
):
    session = RecordingSession(fails)
    monkeypatch.setattr(lake_locks, "_session_of_its_own", lambda: session)
    if remote:
        monkeypatch.setenv("SPARK_REMOTE", remote)
    else:
        monkeypatch.delenv("SPARK_REMOTE", raising=False)
    lake_locks._tidy_quietly()
    assert session.sent == [f"vacuum {LEASES_TABLE}"]
    assert session.stopped == bool(remote)
