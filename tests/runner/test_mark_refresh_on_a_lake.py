"""The lake's checks of `lakerep mark-external-refresh` and `lakerep refresh` (the
lakerep_mark_refresh macro, SPEC §5), on a lake holding a landed log: every rejection names the
member and the values and writes nothing; valid markers are recorded. The register and pruning
control are stand-ins holding only the columns the macro reads, so no pipeline build is needed."""

from __future__ import annotations

import getpass
import socket

import pytest
from click.testing import CliRunner

from lakerep import dbt
from lakerep.cli import EXIT_USER_ERROR, main
from lakerep.lake import reset_lake
from lakerep.pipeline import land_workload
from lakerep.summary import relation_name

pytestmark = pytest.mark.spark

MARKERS = "lakerep_raw.refresh_markers"


def lakerep(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output.strip()


def markers(spark) -> list[tuple]:
    return [
        tuple(row)
        for row in spark.sql(
            f"select kind, target_table, refresh_start, refresh_end from {MARKERS} order by marked_at"
        ).collect()
    ]


def stand_in(spark, model: str, columns: str, values: str) -> None:
    name = relation_name(model)
    spark.sql(f"create schema if not exists {name.split('.')[0]}")
    spark.sql(f"create table {name} ({columns}) using delta")
    spark.sql(f"insert into {name} values {values}")


@pytest.fixture
def lake(fresh_lake):
    land_workload(records=300, seed=42, batch_records=300)
    yield fresh_lake
    reset_lake()  # drop the stand-ins


def test_rejections_write_nothing_and_valid_markers_are_recorded(lake):
    first, log_end = lake.sql(
        "select min(upper(log_position)), max(upper(log_position)) from lakerep_raw.source_log"
    ).first()
    past_end = f"{int(log_end, 16) + 1:020X}"
    member = "APPLY1.SALES.customers_copy"

    code, output = lakerep(
        "mark-external-refresh", "--member", "customers_copy", "--start", first, "--end", past_end
    )
    assert code == EXIT_USER_ERROR
    assert output == (
        f"lakerep: external marker for member {member} rejected: end {past_end} is past the current end "
        f"of the log ({log_end})"
    )
    code, output = lakerep("mark-external-refresh", "--member", "customers_copy", "--unload-end")
    assert code == EXIT_USER_ERROR
    assert f"unload_end marker for member {member} rejected: no unload start is pending" in output

    # the checks the command makes first are the macro's too (dbt run-operation lakerep_mark_refresh)
    for arguments, message in [
        ({"start_position": log_end, "end_position": first}, f"start {log_end} is after end {first}"),
        (
            {"start_position": "x" * 20, "end_position": first},
            f"start position {'x' * 20} is not 20 hex digits",
        ),
        ({"start_position": first}, "it needs a start and an end position (no end)"),
    ]:
        with pytest.raises(dbt.OperationRejected) as rejected:
            dbt.run_operation(
                "lakerep_mark_refresh", {"kind": "external", "target_table": "customers_copy", **arguments}
            )
        assert str(rejected.value) == f"external marker for member {member} rejected: {message}"
    with pytest.raises(dbt.OperationRejected) as rejected:
        dbt.run_operation("lakerep_mark_refresh", {"kind": "refresh", "target_table": "nope"})
    assert str(rejected.value) == "no member of subscriptions.yml has the target nope"
    assert markers(lake) == []

    # where the member will start reading: the greater of its SYNCHPOINT and its source's CD_OLD_SYNCHPOINT
    middle = f"{(int(first, 16) + int(log_end, 16)) // 2:020X}"
    stand_in(
        lake, "pruning_control", "TARGET_TABLE string, SYNCHPOINT string", f"('customers_copy', '{middle}')"
    )
    stand_in(
        lake,
        "register",
        "SOURCE_OWNER string, SOURCE_TABLE string, GLOBAL_RECORD string, CD_OLD_SYNCHPOINT string",
        f"('SALES', 'CUSTOMERS', 'N', '{first}')",
    )
    code, output = lakerep(
        "mark-external-refresh", "--member", "customers_copy", "--start", first, "--end", log_end
    )
    assert code == EXIT_USER_ERROR
    assert output == (
        f"lakerep: external marker for member {member} rejected: start {first} is before {middle}, where "
        f"the subscription will start reading (the greater of its SYNCHPOINT {middle} and "
        f"CD_OLD_SYNCHPOINT {first} of SALES.CUSTOMERS)"
    )
    assert markers(lake) == []

    code, output = lakerep(
        "mark-external-refresh", "--member", "customers_copy", "--start", middle.lower(), "--end", log_end
    )
    assert code == 0, output
    assert output.startswith(
        f"lakerep: external refresh of member {member} recorded, from {middle} to {log_end}"
    )
    assert lakerep("mark-external-refresh", "--member", "stock_copy", "--unload-start")[0] == 0
    assert lakerep("mark-external-refresh", "--member", "stock_copy", "--unload-end")[0] == 0
    assert lakerep("mark-external-refresh", "--member", "stock_copy", "--unload-end")[0] == EXIT_USER_ERROR
    # several members in one call: one process, one Spark start
    code, output = lakerep("refresh", "--member", "orders_history", "--member", "order_lines_pit")
    assert code == 0
    assert "full refresh of member APPLY1.SALES.orders_history requested" in output
    assert "full refresh of member APPLY1.SALES.order_lines_pit requested" in output
    assert markers(lake) == [
        ("external", "customers_copy", middle, log_end),
        ("unload_start", "stock_copy", log_end, None),
        ("external", "stock_copy", log_end, log_end),
        ("refresh", "orders_history", None, None),
        ("refresh", "order_lines_pit", None, None),
    ]
    marked_by = {row[0] for row in lake.sql(f"select distinct marked_by from {MARKERS}").collect()}
    assert marked_by == {f"{getpass.getuser()}@{socket.gethostname()}"}
