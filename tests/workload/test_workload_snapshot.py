"""Unloads for refresh: a lock-free scan in key order while transactions go on."""

from __future__ import annotations

import json

import pytest
from workload_support import Run

from lakerep.registrations import Registration
from lakerep.workload import RowCodec
from lakerep.workload.values import format_position


def _position(number: int) -> str:
    return format_position(number)


def test_a_window_without_commits_reads_the_state_at_that_point(log_run: Run) -> None:
    workload = log_run.workload
    commits = workload.oracle.commit_positions()
    for index in (50, 300, len(commits) - 2):
        start = commits[index]
        end = _position(int(commits[index + 1], 16) - 1)
        for table in workload.tables:
            expected = list(workload.oracle.state_at(table, start).values())
            assert workload.snapshot(table, start, end).rows == sorted_rows(workload, table, expected)
            assert workload.snapshot(table, start, start).rows == sorted_rows(workload, table, expected)


def sorted_rows(workload, table: str, rows: list[dict]) -> list[dict]:
    keys = workload.registrations[table].key_columns
    return sorted(rows, key=lambda row: tuple(row[column] for column in keys))


def test_a_window_with_commits_reads_each_row_at_a_rising_point(log_run: Run) -> None:
    workload = log_run.workload
    oracle = workload.oracle
    commits = oracle.commit_positions()
    start, end = commits[200], commits[260]
    blurred = 0
    for table in workload.tables:
        snapshot = workload.snapshot(table, start, end)
        registration = workload.registrations[table]
        keys = [tuple(row[column] for column in registration.key_columns) for row in snapshot.rows]
        assert keys == sorted(keys)
        assert snapshot.read_positions == sorted(snapshot.read_positions)
        assert all(start <= point <= end for point in snapshot.read_positions)
        states: dict[str, dict] = {}
        for key, row, point in zip(keys, snapshot.rows, snapshot.read_positions, strict=True):
            state = states.setdefault(point, oracle.state_at(table, point))
            assert state[key] == row
        # Each row is the committed row at some commit in the window (or at its start).
        window_states = [oracle.state_at(table, position) for position in [start, *commits[201:261]]]
        for key, row in zip(keys, snapshot.rows, strict=True):
            assert any(state.get(key) == row for state in window_states)
        start_rows = sorted_rows(workload, table, list(oracle.state_at(table, start).values()))
        end_rows = sorted_rows(workload, table, list(oracle.state_at(table, end).values()))
        blurred += snapshot.rows not in (start_rows, end_rows)
    assert blurred >= 2  # a lock-free unload is neither the start nor the end state


def test_landing_rows_carry_the_window_and_the_encoded_row(
    log_run: Run, registrations: dict[str, Registration]
) -> None:
    workload = log_run.workload
    commits = workload.oracle.commit_positions()
    snapshot = workload.snapshot("SALES.ORDER_LINES", commits[10], commits[400])
    landing = snapshot.to_landing_rows()
    assert len(landing) == len(snapshot.rows) > 0
    codec = RowCodec(registrations["SALES.ORDER_LINES"].columns)
    for landed, row in zip(landing, snapshot.rows, strict=True):
        assert set(landed) == {
            "snapshot_id",
            "source_owner",
            "source_table",
            "unload_start_position",
            "unload_end_position",
            "row_image",
        }
        assert (landed["source_owner"], landed["source_table"]) == ("SALES", "ORDER_LINES")
        assert landed["snapshot_id"] == f"SALES.ORDER_LINES:{commits[10]}:{commits[400]}"
        assert (landed["unload_start_position"], landed["unload_end_position"]) == (commits[10], commits[400])
        assert codec.decode(landed["row_image"]) == row
        assert list(json.loads(landed["row_image"])) == list(codec.names)


def test_bad_windows_are_refused_with_a_clear_message(log_run: Run) -> None:
    workload = log_run.workload
    commits = workload.oracle.commit_positions()
    with pytest.raises(ValueError, match="after end position"):
        workload.snapshot("SALES.ORDERS", commits[5], commits[4])
    beyond = _position(int(str(workload.log_end_position), 16) + 1)
    with pytest.raises(ValueError, match="not a position already written"):
        workload.snapshot("SALES.ORDERS", commits[5], beyond)
    with pytest.raises(ValueError, match="not a position already written"):
        workload.snapshot("SALES.ORDERS", "00000000000000000000", commits[5])
    with pytest.raises(ValueError, match="hex"):
        workload.snapshot("SALES.ORDERS", "start", commits[5])
    with pytest.raises(ValueError, match="not a registered table"):
        workload.snapshot("AUDIT.EVENTS", commits[4], commits[5])
