"""Scale-out path (SPEC §8): the same project, `dbt build --target thrift`, against a real Spark
Thrift Server submitting to a Spark standalone cluster, both started from the pyspark package on
127.0.0.1 (lakerep.spark_cluster) with Delta on every class path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lakerep import PROJECT_DIR, spark_cluster

pytestmark = pytest.mark.thrift

CHANGE = (
    '{"order_id": 7, "customer_id": "C7", "order_date": "2026-01-02", '
    '"status": "NEW", "total": "1.50", "note": null}'
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    home = tmp_path_factory.mktemp("thrift")
    with spark_cluster.running_cluster(home, server="thrift") as cluster:
        yield home, cluster.server_port


def dbt_thrift(home: Path, port: int, *args: str) -> subprocess.CompletedProcess:
    environment = {
        **os.environ,
        "LAKEREP_TARGET": "thrift",
        "LAKEREP_THRIFT_PORT": str(port),
        "DBT_TARGET_PATH": str(home / "target"),
        "DBT_LOG_PATH": str(home / "logs"),
    }
    return subprocess.run(
        [str(Path(sys.executable).parent / "dbt"), *args,
         "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR / "profiles")],
        env=environment, capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def query(port: int, sql: str) -> list[tuple]:
    from pyhive import hive

    with hive.connect(host="127.0.0.1", port=port, username="lakerep") as connection:
        cursor = connection.cursor()
        cursor.execute(sql)
        return cursor.fetchall() if cursor.description else []


def test_dbt_build_runs_against_a_spark_thrift_server(server):
    home, port = server
    first = dbt_thrift(home, port, "run")  # the data tests run in the build below, on data
    assert first.returncode == 0, first.stdout[-3000:]

    query(
        port,
        "insert into lakerep_raw.source_log values "
        f"('00000000000000000010', '00000000000000000010', 'I', 'SALES', 'ORDERS', "
        f"'2026-01-02 10:00:00', 'APP', 'T1', null, '{CHANGE}', 1, current_timestamp()), "
        "('00000000000000000020', '00000000000000000010', 'C', null, null, "
        "'2026-01-02 10:00:01', 'APP', 'T1', null, null, 1, current_timestamp()), "
        "('0000000000000000002G', '00000000000000000030', 'I', 'SALES', 'ORDERS', "
        f"'2026-01-02 10:00:02', 'APP', 'T2', null, '{CHANGE}', 1, current_timestamp())",
    )
    second = dbt_thrift(home, port, "build")
    assert second.returncode == 0, second.stdout[-3000:]

    assert query(port, "select count(*) from lakerep_staging.int_log_records_valid") == [(2,)]
    assert query(port, "select quarantine_reason from lakerep_staging.source_log_quarantine") == [
        ("malformed_log_position",)
    ]
    assert (home / "warehouse" / "lakerep_staging.db" / "int_log_records_judged" / "_delta_log").is_dir()
