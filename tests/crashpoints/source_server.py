"""A PostgreSQL source's server as the base lake found it: each crash point starts from the base's
lake and the base's server together, since the lake records where it confirmed the slot and the
slot must be there (a slot past the lake's record is a loss, which the runner refuses).

The copy is the server's data directory, taken from a server stopped cleanly; restoring it stops
the server as a crash would and starts it again on the copy, with the settings it started with
(pg_ctl restart reads them from the copy's postmaster.opts)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import psycopg
from sources.postgresql_server import _as_server_user, server_binaries, wait_until_answering


def data_directory(dsn: str) -> Path:
    with psycopg.connect(dsn) as connection:
        return Path(connection.execute("show data_directory").fetchone()[0])


def save(dsn: str, copy: Path) -> None:
    """The server's data directory, copied to `copy` (replacing it), the server running after."""
    data = data_directory(dsn)
    _pg_ctl(data, "-m", "fast", "stop")
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(data, copy, symlinks=True)
    _start(dsn, data)


def restore(dsn: str, copy: Path) -> None:
    """The server running on the data directory `copy` holds (its slots, its tables)."""
    data = data_directory(dsn)
    _pg_ctl(data, "-m", "immediate", "stop")
    for entry in data.iterdir():
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    shutil.copytree(copy, data, symlinks=True, dirs_exist_ok=True)
    subprocess.run(["chown", "-R", "--reference", str(data), str(data)], check=True)
    _start(dsn, data)


def _start(dsn: str, data: Path) -> None:
    # restart, not start: with the server stopped it starts it, with postmaster.opts's settings
    _pg_ctl(data, "-l", str(data / "server.log"), "-w", "restart", check=False)
    wait_until_answering(dsn, data)


def _pg_ctl(data: Path, *arguments: str, check: bool = True) -> None:
    done = subprocess.run(_as_server_user([str(server_binaries() / "pg_ctl"), "-D", str(data), *arguments]),
                          capture_output=True, text=True)  # fmt: skip
    if check and done.returncode != 0:
        raise RuntimeError(f"pg_ctl {' '.join(arguments)}: {done.stdout}{done.stderr}")
