"""The oracle against the generator's own states and against a replay of the landed JSON."""

from __future__ import annotations

import pytest
from workload_support import Images, Run, table_of, uows

from lakerep.registrations import Column, Registration
from lakerep.workload import OracleError, RowCodec, Workload, WorkloadConfig, replay_landing_records
from lakerep.workload.oracle import replay_changes
from lakerep.workload.values import format_timestamp


def test_commit_positions_match_the_commit_records(log_run: Run) -> None:
    oracle = log_run.workload.oracle
    commits = [record["log_position"] for record in log_run.records if record["record_type"] == "C"]
    assert oracle.commit_positions() == commits == sorted(commits)
    assert [uow.commit_position for uow in oracle.committed_uows()] == commits


def test_uow_outcomes_match_the_log(log_run: Run) -> None:
    oracle = log_run.workload.oracle
    found = uows(log_run.records)
    rolled_back = [record["uow_id"] for record in log_run.records if record["record_type"] == "R"]
    assert oracle.rolled_back_uows() == rolled_back
    assert len(rolled_back) >= 10
    assert oracle.open_uows() == [uow_id for uow_id, uow in found.items() if uow.end is None]
    for uow in oracle.committed_uows():
        records = found[uow.uow_id]
        assert (uow.auth_id, uow.auth_token) == (
            records.records[0]["auth_id"],
            records.records[0]["auth_token"],
        )
        assert format_timestamp(uow.commit_timestamp) == records.end["log_timestamp"]
        assert uow.begin_position == uow.uow_id
        registered = [record for record in records.changes if table_of(record) in log_run.workload.tables]
        assert [change.log_position for change in uow.changes] == [r["log_position"] for r in registered]


def test_replaying_the_oracle_gives_the_generators_committed_state(log_run: Run) -> None:
    workload = log_run.workload
    for table in workload.tables:
        committed = workload.committed_rows(table)
        assert len(committed) > 100
        assert workload.oracle.state_at(table) == committed
        assert workload.oracle.state_at(table, workload.log_end_position) == committed


def test_live_state_is_committed_state_plus_open_transactions(
    log_run: Run, registrations: dict[str, Registration]
) -> None:
    workload = log_run.workload
    open_changes = workload.oracle.open_changes()
    assert open_changes
    assert {change.uow_id for change in open_changes} <= set(workload.oracle.open_uows())
    images = Images(registrations)
    open_uows = set(workload.oracle.open_uows())
    landed_open = [
        record
        for record in log_run.records
        if record["uow_id"] in open_uows and record["record_type"] in ("I", "U", "D")
    ]
    for table in workload.tables:
        expected = replay_changes(
            dict(workload.oracle.row_states(table)), [c for c in open_changes if c.table == table]
        )
        live = workload.live_rows(table)
        names = registrations[table].column_names
        assert {key: dict(zip(names, row, strict=True)) for key, row in expected.items()} == live
        # The same from the landed JSON of the open transactions (log landing order has it all).
        from_json = dict(workload.committed_rows(table))
        for record in landed_open:
            if table_of(record) != table:
                continue
            before, after = images.before(record), images.after(record)
            if before is not None:
                assert from_json.pop(images.key(record, before)) == before
            if after is not None:
                from_json[images.key(record, after)] = after
        assert from_json == live


def test_rolled_back_changes_never_show(finished_log_run: Run) -> None:
    workload = finished_log_run.workload
    oracle = workload.oracle
    rolled_back = set(oracle.rolled_back_uows())
    rolled_back_tables = {
        table_of(record)
        for record in finished_log_run.records
        if record["uow_id"] in rolled_back and record["record_type"] in ("I", "U", "D")
    }
    assert set(workload.tables) <= rolled_back_tables
    for table in workload.tables:
        history = oracle.history(table)
        assert not {change.uow_id for change in history} & rolled_back
        # Every row of the state is the after image of the key's last committed change.
        latest: dict[tuple, dict] = {}
        for change in history:
            if change.before_key is not None:
                latest.pop(change.before_key)
            if change.after is not None:
                latest[change.key] = change.after
        assert oracle.state_at(table) == latest == workload.committed_rows(table)


@pytest.mark.parametrize("run_name", ["log_run", "commit_run"])
def test_a_replay_of_the_landed_records_agrees_at_every_tenth_commit(
    run_name: str, request: pytest.FixtureRequest, registrations: dict[str, Registration]
) -> None:
    run: Run = request.getfixturevalue(run_name)
    oracle = run.workload.oracle
    commits = oracle.commit_positions()
    # Commit order landing holds back the open transactions: only what has landed can replay.
    landed = {record["uow_id"] for record in run.records if record["record_type"] == "C"}
    checked = [position for position in commits[9::10]]
    assert len(checked) >= 40
    for position in checked:
        replayed = replay_landing_records(run.records, registrations, up_to=position)
        for table in oracle.tables:
            assert replayed[table] == oracle.state_at(table, position), (table, position)
    assert {uow.uow_id for uow in oracle.committed_uows()} == landed
    final = replay_landing_records(run.records, registrations)
    for table in oracle.tables:
        assert final[table] == run.workload.committed_rows(table)


def test_history_is_bounded_and_in_commit_then_log_order(log_run: Run) -> None:
    oracle = log_run.workload.oracle
    commits = oracle.commit_positions()
    low, high = commits[len(commits) // 4], commits[len(commits) // 2]
    for table in oracle.tables:
        everything = oracle.history(table)
        window = oracle.history(table, after=low, up_to=high)
        assert window == [c for c in everything if low < c.commit_position <= high]
        assert window
        order = [(change.commit_position, change.log_position) for change in everything]
        assert order == sorted(order)
        assert oracle.history(table, up_to=low) + oracle.history(table, after=low) == everything
        assert oracle.history(table, after=high, up_to=low) == []
        for change in window:
            assert change.table == table and change.operation in ("I", "U", "D")
            assert change.commit_timestamp is not None
            assert change.log_position > change.uow_id or change.log_position == change.uow_id
            assert change.log_position < change.commit_position
            assert (change.before is None) == (change.operation == "I")
            assert (change.after is None) == (change.operation == "D")


def test_state_at_a_position_between_commits_is_the_state_at_the_commit_before(log_run: Run) -> None:
    oracle = log_run.workload.oracle
    commits = oracle.commit_positions()
    between = f"{int(commits[100], 16) + 1:020X}"
    assert between < commits[101]
    for table in oracle.tables:
        assert oracle.state_at(table, between) == oracle.state_at(table, commits[100])
        assert oracle.state_at(table, "00000000000000000000") == {}


def test_unknown_tables_and_bad_positions_are_refused(log_run: Run) -> None:
    oracle = log_run.workload.oracle
    with pytest.raises(KeyError, match=r"AUDIT\.EVENTS"):
        oracle.state_at("AUDIT.EVENTS")
    with pytest.raises(ValueError, match="hex"):
        oracle.history("SALES.ORDERS", up_to="12")


def test_registrations_drive_the_tables(registrations: dict[str, Registration]) -> None:
    only_stock = {"INVENTORY.STOCK": registrations["INVENTORY.STOCK"]}
    workload = Workload(9, registrations=only_stock, config=WorkloadConfig(unregistered_share=0.0))
    records = workload.next_batch(1000, finish=True).records
    assert {table_of(record) for record in records if record["source_table"]} == {"INVENTORY.STOCK"}
    assert workload.oracle.tables == ("INVENTORY.STOCK",)
    replayed = replay_landing_records(records, only_stock)
    assert replayed["INVENTORY.STOCK"] == workload.oracle.state_at("INVENTORY.STOCK")


def test_the_oracle_refuses_changes_that_break_the_rules(log_run: Run) -> None:
    history = log_run.workload.oracle.history("SALES.ORDERS")
    insert = next(change for change in history if change.operation == "I")
    with pytest.raises(OracleError, match="existing key"):
        replay_changes({}, [insert, insert])
    delete = insert._replace(operation="D", before_values=insert.after_values, after_values=None)
    with pytest.raises(OracleError, match="before image"):
        replay_changes({}, [delete])


def test_any_declared_types_and_composite_keys_work() -> None:
    wide = Registration(
        source_owner="TEST",
        source_table="WIDE",
        columns=(
            Column("region", "string"),
            Column("day", "date"),
            Column("seq", "smallint"),
            Column("huge", "decimal(38,10)"),
            Column("whole", "decimal(5,0)"),
            Column("tiny", "tinyint"),
            Column("big", "bigint"),
            Column("at", "timestamp"),
        ),
        key_columns=("region", "day", "seq"),
        before_image_prefix=None,
        key_updates_as_delete_insert=False,
        ccd_condensed=True,
        ccd_complete=False,
        disable_refresh=False,
    )
    registrations = {wide.qualified_name: wide}
    workload = Workload(13, registrations=registrations, config=WorkloadConfig(landing_order="commit"))
    records = [record for _ in range(4) for record in workload.next_batch(500).records]
    records += workload.close_open_transactions().records
    state = workload.oracle.state_at("TEST.WIDE")
    assert len(state) > 50
    assert (
        replay_landing_records(records, registrations)["TEST.WIDE"]
        == state
        == workload.committed_rows("TEST.WIDE")
    )
    huge = [row["huge"] for row in state.values() if row["huge"] is not None]
    assert any(len(value.as_tuple().digits) > 28 for value in huge)
    commits = workload.oracle.commit_positions()
    snapshot = workload.snapshot("TEST.WIDE", commits[20], commits[60])
    assert [
        RowCodec(wide.columns).decode(row["row_image"]) for row in snapshot.to_landing_rows()
    ] == snapshot.rows
