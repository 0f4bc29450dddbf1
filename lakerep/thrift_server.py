"""Starts a Spark Thrift Server from the pyspark package, configured like the embedded lake.

For trying the scale-out path (profile output `thrift`) on one machine, and for its test. A
real cluster runs its own Thrift Server; point LAKEREP_THRIFT_HOST/PORT at it instead.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

from lakerep.profile import spark_settings
from lakerep.spark_cluster import resolve_delta_jars

SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"


def start(home: Path, port: int, *, driver_memory: str = "2g") -> subprocess.Popen:
    """Start a server on 127.0.0.1:`port` with its metastore and warehouse under `home`."""
    import pyspark

    home.mkdir(parents=True, exist_ok=True)
    environment = {
        **os.environ,
        "LAKEREP_HOME": str(home),
        "LAKEREP_DRIVER_MEMORY": driver_memory,
        "SPARK_LOCAL_IP": "127.0.0.1",
    }
    settings = spark_settings("local", environment)
    spark_submit = str(Path(pyspark.__file__).parent / "bin" / "spark-submit")
    settings.pop("spark.jars.packages")
    master = settings.pop("spark.master")
    # Delta's jars on the driver's class path from its start (spark_cluster.resolve_delta_jars).
    delta_jars = resolve_delta_jars(home, environment)
    command = [
        spark_submit,
        "--class", SERVER_CLASS,
        "--master", master,
        "--conf", f"spark.driver.extraClassPath={delta_jars}",
        *[part for key, value in settings.items() for part in ("--conf", f"{key}={value}")],
        "spark-internal",
        "--hiveconf", f"hive.server2.thrift.port={port}",
        "--hiveconf", "hive.server2.thrift.bind.host=127.0.0.1",
    ]  # fmt: skip
    log = (home / "thrift-server.log").open("ab")
    return subprocess.Popen(command, cwd=home, env=environment, stdout=log, stderr=subprocess.STDOUT)


def wait_until_listening(process: subprocess.Popen, port: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the Thrift Server exited with {process.returncode} before listening")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(1)
    raise TimeoutError(f"the Thrift Server did not listen on 127.0.0.1:{port} within {timeout:.0f} s")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
