"""Landing batches: log order versus commit order (PostgreSQL logical decoding, Debezium)."""

from __future__ import annotations

import pytest
from workload_support import Run, uows

from lakerep.workload import Workload, WorkloadConfig


def test_batches_are_numbered_from_one(log_run: Run, finished_commit_run: Run) -> None:
    assert [batch.number for batch in log_run.batches] == list(range(1, len(log_run.batches) + 1))
    assert [batch.number for batch in finished_commit_run.batches] == list(
        range(1, len(finished_commit_run.batches) + 1)
    )


def test_log_order_lands_records_as_written_and_transactions_span_batches(log_run: Run) -> None:
    positions = [record["log_position"] for record in log_run.records]
    assert positions == sorted(positions)
    batch_of = {record["log_position"]: batch.number for batch in log_run.batches for record in batch.records}
    spanning = [
        uow
        for uow in uows(log_run.records).values()
        if uow.end is not None and batch_of[uow.uow_id] < batch_of[uow.end_position]
    ]
    assert len(spanning) >= len(log_run.batches) - 1
    # Still open at the end: its early records have landed, its end has not.
    assert log_run.workload.oracle.open_uows()
    for uow_id in log_run.workload.oracle.open_uows():
        assert uow_id in batch_of


def test_commit_order_lands_whole_transactions_in_the_batch_they_end(commit_run: Run) -> None:
    for batch in commit_run.batches:
        ends = [record for record in batch.records if record["record_type"] in ("C", "R")]
        assert [end["log_position"] for end in ends] == sorted(end["log_position"] for end in ends)
        # Grouped per UOW, in the order they ended, each complete and in log order.
        groups: list[list[dict]] = []
        for record in batch.records:
            if not groups or groups[-1][-1]["record_type"] in ("C", "R"):
                groups.append([])
            groups[-1].append(record)
        assert groups and groups[-1][-1]["record_type"] in ("C", "R")
        for group in groups:
            assert len({record["uow_id"] for record in group}) == 1
            assert group[0]["log_position"] == group[0]["uow_id"]
            positions = [record["log_position"] for record in group]
            assert positions == sorted(positions)
    landed = {record["uow_id"] for record in commit_run.records}
    assert not landed & set(commit_run.workload.oracle.open_uows())


def test_commit_order_lands_positions_below_ones_already_landed(commit_run: Run) -> None:
    highest_so_far = ""
    late = 0
    for batch in commit_run.batches:
        lowest = min(record["log_position"] for record in batch.records)
        late += lowest < highest_so_far
        highest_so_far = max(highest_so_far, *(record["log_position"] for record in batch.records))
    assert late >= 3


def test_both_landing_orders_carry_the_same_log(finished_log_run: Run, finished_commit_run: Run) -> None:
    by_position = sorted(finished_commit_run.records, key=lambda record: record["log_position"])
    assert by_position == finished_log_run.records
    assert (
        finished_log_run.workload.oracle.commit_positions()
        == finished_commit_run.workload.oracle.commit_positions()
    )


def test_finishing_leaves_nothing_open(finished_commit_run: Run) -> None:
    workload = finished_commit_run.workload
    assert workload.oracle.open_uows() == []
    for table in workload.tables:
        assert workload.live_rows(table) == workload.committed_rows(table)
    assert all(uow.end is not None for uow in uows(finished_commit_run.records).values())
    assert any(record["record_type"] == "C" for record in finished_commit_run.batches[-1].records)


def test_the_workload_goes_on_after_finishing() -> None:
    workload = Workload(3)
    first = workload.next_batch(200, finish=True)
    assert workload.oracle.open_uows() == []
    second = workload.next_batch(200)
    assert second.number == 2
    assert min(record["log_position"] for record in second.records) > str(first.log_end_position)
    assert workload.oracle.open_uows()


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        Workload(1).next_batch(-1)
    with pytest.raises(ValueError, match="landing_order"):
        WorkloadConfig(landing_order="arrival")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="open_transactions"):
        WorkloadConfig(min_open_transactions=5, max_open_transactions=3)
    with pytest.raises(ValueError, match="multiple of 0x10"):
        WorkloadConfig(first_position=0x10001)


def test_the_interleaving_degree_follows_the_config() -> None:
    config = WorkloadConfig(min_open_transactions=1, max_open_transactions=1, long_transaction_rate=0.0)
    workload = Workload(5, config=config)
    records = workload.next_batch(2000).records
    open_now = most_open = 0
    for record in records:
        open_now += record["log_position"] == record["uow_id"]
        open_now -= record["record_type"] in ("C", "R")
        most_open = max(most_open, open_now)
    assert most_open == 1
