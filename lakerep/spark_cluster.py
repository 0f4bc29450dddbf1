"""A Spark standalone cluster on this machine, from the pyspark package: a master, a worker and
a server (Spark Connect, or the Thrift Server) that submits to it, every one on 127.0.0.1.

For trying the scale-out path on one machine (`lakerep cluster`), and for its tests. A real
cluster runs its own; point the profile's `cluster` output (LAKEREP_CONNECT_HOST/PORT) at its
Spark Connect server instead. Every process is configured from the profile's `local` output
(profiles/profiles.yml), like the embedded lake, less what the cluster decides itself (the
master, the driver's memory). The warehouse and the metastore live under the cluster's home,
a path every process of the cluster sees (one machine here; a shared file system or an object
store on a real cluster).
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lakerep import delta_jars
from lakerep.profile import spark_settings

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
CONNECT_SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
THRIFT_SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
LOOPBACK = "127.0.0.1"


@dataclass
class Cluster:
    """The processes of a running cluster and where to reach them."""

    home: Path
    master_url: str
    server_port: int
    server_kind: str  # "connect" or "thrift"
    processes: list[subprocess.Popen] = field(default_factory=list)

    @property
    def connect_url(self) -> str:
        return f"sc://{LOOPBACK}:{self.server_port}"

    def environment(self) -> dict[str, str]:
        """The variables that point the profile (and so dbt and the runner) at this cluster."""
        if self.server_kind == "connect":
            return {"LAKEREP_TARGET": "cluster", "LAKEREP_CONNECT_PORT": str(self.server_port)}
        return {"LAKEREP_TARGET": "thrift", "LAKEREP_THRIFT_PORT": str(self.server_port)}

    def stop(self) -> None:
        """Stop every process (SIGTERM, the server's first; SIGKILL after 60 s)."""
        for process in reversed(self.processes):
            process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()


def spark_bin(command: str) -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / command)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def base_environment(home: Path, driver_memory: str) -> dict[str, str]:
    """The cluster's processes bind to loopback only (SPARK_LOCAL_IP; the web UIs too) and keep
    their logs, metastore and warehouse under `home`."""
    return {
        **os.environ,
        "LAKEREP_HOME": str(home),
        "LAKEREP_DRIVER_MEMORY": driver_memory,
        "SPARK_LOCAL_IP": LOOPBACK,
        "SPARK_PUBLIC_DNS": LOOPBACK,
        "SPARK_LOG_DIR": str(home / "logs"),
        "SPARK_WORKER_DIR": str(home / "work"),
        "SPARK_DAEMON_MEMORY": "512m",
        # The master's REST submission server would take port 6066 whatever the cluster's ports.
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
        "PYSPARK_PYTHON": sys.executable,
    }


@contextlib.contextmanager
def running_cluster(
    home: Path, *, server: str = "connect", driver_memory: str = "2g", executor_memory: str = "2g"
) -> Iterator[Cluster]:
    """Start a cluster under `home`, yield it once its server listens, stop it on the way out."""
    cluster = start(home, server=server, driver_memory=driver_memory, executor_memory=executor_memory)
    try:
        yield cluster
    finally:
        cluster.stop()


def start(
    home: Path, *, server: str = "connect", driver_memory: str = "2g", executor_memory: str = "2g"
) -> Cluster:
    """Start master, worker and server (`connect` or `thrift`); return when the server listens.
    On any failure the processes already started are stopped and RuntimeError names the one that
    failed, with the end of its log."""
    if server not in ("connect", "thrift"):
        raise ValueError(f"server must be connect or thrift, not {server!r}")
    home = home.absolute()
    home.mkdir(parents=True, exist_ok=True)
    environment = base_environment(home, driver_memory)
    delta_jars = resolve_delta_jars(home, environment)
    # Each port is picked just before its process starts (a free port may be taken meanwhile;
    # wait_until_listening then sees the process fail).
    master_port = free_port()
    cluster = Cluster(home, f"spark://{LOOPBACK}:{master_port}", 0, server)
    try:
        _spawn(cluster, "master", environment, [
            spark_bin("spark-class"), MASTER_CLASS,
            "--host", LOOPBACK, "--port", str(master_port), "--webui-port", str(free_port()),
        ])  # fmt: skip
        wait_until_listening(cluster, "master", master_port)
        _spawn(cluster, "worker", environment, [
            spark_bin("spark-class"), WORKER_CLASS, cluster.master_url,
            "--host", LOOPBACK, "--webui-port", str(free_port()), "--work-dir", str(home / "work"),
            "--cores", str(os.cpu_count() or 2), "--memory", _worker_memory(executor_memory),
        ])  # fmt: skip
        cluster.server_port = free_port()
        _spawn(
            cluster, server, environment, _server_command(cluster, environment, delta_jars, executor_memory)
        )
        wait_until_listening(cluster, server, cluster.server_port)
        wait_until_answering(cluster, server)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _server_command(cluster: Cluster, environment: dict, delta_jars: str, executor_memory: str) -> list[str]:
    settings = spark_settings("local", environment)
    settings.pop("spark.jars.packages")  # on the class paths below instead
    settings.pop("spark.jars", None)
    settings.pop("spark.master")
    settings.update({
        # Delta's jars on every JVM's class path from its start: the servers run statements
        # under a class loader that does not see jars added at run time (DATA_SOURCE_NOT_FOUND).
        # One machine here; a real cluster installs the jars on every node at the same path.
        "spark.driver.extraClassPath": delta_jars,
        "spark.executor.extraClassPath": delta_jars,
        "spark.executor.memory": executor_memory,
        "spark.driver.host": LOOPBACK,
        "spark.driver.bindAddress": LOOPBACK,
    })  # fmt: skip
    common = [
        spark_bin("spark-submit"),
        "--master", cluster.master_url,
        *[part for key, value in settings.items() for part in ("--conf", f"{key}={value}")],
    ]  # fmt: skip
    if cluster.server_kind == "connect":
        return [
            *common,
            "--conf", f"spark.connect.grpc.binding.address={LOOPBACK}",
            "--conf", f"spark.connect.grpc.binding.port={cluster.server_port}",
            "--class", CONNECT_SERVER_CLASS, "spark-internal",
        ]  # fmt: skip
    return [
        *common,
        "--class", THRIFT_SERVER_CLASS, "spark-internal",
        "--hiveconf", f"hive.server2.thrift.port={cluster.server_port}",
        "--hiveconf", f"hive.server2.thrift.bind.host={LOOPBACK}",
    ]  # fmt: skip


def _worker_memory(executor_memory: str) -> str:
    """What the worker offers: one executor's memory and a margin for its overhead."""
    number, unit = int(executor_memory[:-1]), executor_memory[-1].lower()
    return f"{number + 1}{unit}" if unit == "g" else f"{number + 1024}{unit}"


def _spawn(cluster: Cluster, name: str, environment: dict, command: list[str]) -> None:
    """Start one process of the cluster, its output in <home>/<name>.log."""
    with (cluster.home / f"{name}.log").open("ab") as log:
        process = subprocess.Popen(
            command, cwd=cluster.home, env=environment, stdout=log, stderr=subprocess.STDOUT
        )
    cluster.processes.append(process)


def resolve_delta_jars(home: Path, environment: dict) -> str:
    """Delta's own jars (not their dependencies: older copies of Spark's own libraries there would
    shadow Spark's), fetched by spark-submit into its Ivy folder unless they are there already
    (lakerep.delta_jars), as a class path."""
    resolved = delta_jars.resolved_delta_jars(environment=environment)
    if resolved:
        return ":".join(str(jar) for jar in resolved)
    packages = delta_jars.DELTA_PACKAGE
    noop = home / "resolve_packages.py"
    noop.write_text("# lakerep: nothing to run; spark-submit resolved the packages.\n")
    resolved = subprocess.run(
        [spark_bin("spark-submit"), "--master", "local[1]", "--packages", packages,
         "--conf", "spark.ui.enabled=false", str(noop)],
        cwd=home, env={**environment, "PYSPARK_PYTHON": sys.executable}, capture_output=True, text=True,
    )  # fmt: skip
    if resolved.returncode != 0:
        raise RuntimeError(f"could not resolve {packages}: {resolved.stderr.strip()[-2000:]}")
    match = re.search(r"The jars for the packages stored in: (\S+)", resolved.stderr + resolved.stdout)
    if match is None:
        raise RuntimeError(f"spark-submit did not say where it stored the jars of {packages}")
    return ":".join(str(jar) for jar in sorted(Path(match.group(1)).glob("io.delta_*.jar")))


def wait_until_listening(cluster: Cluster, name: str, port: int, timeout: float = 300) -> None:
    """Wait for the process started last (`name`, its log <home>/<name>.log) to listen on `port`."""
    process, log = cluster.processes[-1], cluster.home / f"{name}.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"the {name} exited with {process.returncode} before listening on {LOOPBACK}:{port}; "
                f"the end of {log}:\n{_tail(log)}"
            )
        with socket.socket() as probe:
            listening = probe.connect_ex((LOOPBACK, port)) == 0
        if listening and process.poll() is None:
            time.sleep(1)  # a process that failed to bind (the port taken) exits soon after
            if process.poll() is None:
                return
        time.sleep(0.5)
    raise TimeoutError(f"the {name} did not listen on {LOOPBACK}:{port} within {timeout:.0f} s; see {log}")


def wait_until_answering(cluster: Cluster, name: str, timeout: float = 300) -> None:
    """Wait until the server answers a query: a listening port is not a server that serves (the
    Thrift Server opens its port before its session is ready, and a test that connected then
    failed with "Could not connect to any of ..."). Each try is a real handshake, `select 1`
    through the server's own protocol; the server's log is shown when it never answers."""
    process, log = cluster.processes[-1], cluster.home / f"{name}.log"
    ask = _ask_connect if cluster.server_kind == "connect" else _ask_thrift
    deadline = time.monotonic() + timeout
    failure = "no answer yet"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"the {name} exited with {process.returncode} before answering a query; "
                f"the end of {log}:\n{_tail(log)}"
            )
        try:
            ask(cluster.server_port)
            return
        except Exception as error:  # not ready yet: the next try says whether it is
            failure = f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0]}"
        time.sleep(1)
    raise TimeoutError(
        f"the {name} on {LOOPBACK}:{cluster.server_port} did not answer `select 1` within {timeout:.0f} s "
        f"({failure}); the end of {log}:\n{_tail(log)}"
    )


# A Spark Connect client marks its whole process as a Connect client (pyspark sets
# SPARK_CONNECT_MODE_ENABLED in os.environ and keeps it): asked from a process that later starts
# an embedded session, every later session would fail with SESSION_ALREADY_EXIST. So the question
# is asked from a process of its own, which also bounds a try the client would otherwise retry
# for minutes.
_CONNECT_QUESTION = """
import sys
from pyspark.sql import SparkSession
session = SparkSession.builder.remote(sys.argv[1]).create()
answer = session.sql("select 1").collect()[0][0]
session.stop()
sys.exit(0 if answer == 1 else 3)
"""


def _ask_connect(port: int, timeout: float = 60) -> None:
    client_marks = ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")
    environment = {k: v for k, v in os.environ.items() if k not in client_marks}
    answered = subprocess.run(
        [sys.executable, "-c", _CONNECT_QUESTION, f"sc://{LOOPBACK}:{port}"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if answered.returncode != 0:
        last = (answered.stderr.strip().splitlines() or [f"exit {answered.returncode}"])[-1]
        raise RuntimeError(f"select 1 was not answered: {last}")


def _ask_thrift(port: int) -> None:
    from pyhive import hive

    with hive.connect(host=LOOPBACK, port=port, username="lakerep") as connection:
        cursor = connection.cursor()
        cursor.execute("select 1")
        if cursor.fetchall() != [(1,)]:
            raise RuntimeError("select 1 did not answer 1")


def _tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
