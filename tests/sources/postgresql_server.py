"""A throw-away PostgreSQL server from the Debian packages, on 127.0.0.1 only, for the tests.

The server refuses to run as root, so as root it runs as the packages' postgres user. Its data
directory is a new folder under the system's temporary directory (pytest's are private to root).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from lakerep.spark_cluster import free_port

SUPERUSER = "lakerep"


def server_binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise RuntimeError("no PostgreSQL server: apt-get install postgresql (make install does)")
    return Path(found[-1]).parent


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextlib.contextmanager
def postgresql_server(wal_level: str = "logical", settings: dict[str, str] | None = None):
    """A running server (its DSN as the superuser) and, on leaving, none; `settings` of
    postgresql.conf over the tests' own."""
    binaries = server_binaries()
    data = Path(tempfile.mkdtemp(prefix="lakerep-pg-"))
    if os.geteuid() == 0:
        shutil.chown(data, "postgres", "postgres")
    port = free_port()
    chosen = {"wal_level": wal_level, "listen_addresses": "127.0.0.1", "port": str(port),
              "unix_socket_directories": str(data), "fsync": "off", "max_replication_slots": "10",
              **(settings or {})}  # fmt: skip
    options = " ".join(f"-c {name}={value}" for name, value in chosen.items())
    try:
        subprocess.run(_as_server_user([str(binaries / "initdb"), "-D", str(data), "-U", SUPERUSER,
                                        "--auth=trust", "--encoding=UTF8", "--no-sync"]),
                       check=True, capture_output=True)  # fmt: skip
        started = subprocess.run(_as_server_user([str(binaries / "pg_ctl"), "-D", str(data), "-o", options,
                                                  "-l", str(data / "server.log"), "-w", "start"]),
                                 capture_output=True, text=True)  # fmt: skip
        dsn = f"postgresql://{SUPERUSER}@127.0.0.1:{port}/postgres"
        if started.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {started.stderr.strip()}\n{_log_tail(data)}")
        wait_until_answering(dsn, data)
        yield dsn
    finally:
        stop = [str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]
        subprocess.run(_as_server_user(stop), capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


def wait_until_answering(dsn: str, data: Path, timeout: float = 60) -> None:
    """Wait until the server answers `select 1` over TCP (a started server is not yet one that
    serves: a test that connected too early failed at random); its log is shown when it never does."""
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(dsn, connect_timeout=5) as connection:
                if connection.execute("select 1").fetchone() == (1,):
                    return
        except psycopg.OperationalError as error:
            if time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL at {dsn} did not answer within {timeout:.0f} s: {error}\n"
                                   f"{_log_tail(data)}") from error  # fmt: skip
        time.sleep(0.2)


def _log_tail(data: Path, lines: int = 30) -> str:
    try:
        return "the end of the server's log:\n" + "\n".join(
            (data / "server.log").read_text(errors="replace").splitlines()[-lines:]
        )
    except OSError:
        return "(no server log)"


@contextlib.contextmanager
def serving(schema: str):
    """A running server holding the tables of the SQL `schema`: its DSN."""
    import psycopg

    with postgresql_server() as dsn:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(schema)
        yield dsn


def pgbench(dsn: str, *arguments: str) -> subprocess.CompletedProcess:
    """The server's pgbench with `arguments`, on the database of `dsn`; its output as text."""
    from psycopg.conninfo import conninfo_to_dict

    info = conninfo_to_dict(dsn)
    connection = ["-h", info["host"], "-p", str(info["port"]), "-U", info["user"], info["dbname"]]
    return subprocess.run(
        [str(server_binaries() / "pgbench"), *arguments, *connection],
        check=True,
        capture_output=True,
        text=True,
    )


def execute(dsn: str, *statements: str) -> None:
    """The statements in one transaction."""
    import psycopg

    with psycopg.connect(dsn) as connection:
        for statement in statements:
            connection.execute(statement)
