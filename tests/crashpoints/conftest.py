"""A run kind's settings for the crash points' processes: the PostgreSQL kind's live server (the
demo's registered tables) and where its base copy goes."""

from __future__ import annotations

import pytest
from crashpoints.postgresql_kind import SOURCE_COPY_VARIABLE, SOURCE_VARIABLE
from sources.demo_tables import SCHEMA
from sources.postgresql_server import serving


@pytest.fixture
def source_server(tmp_path, monkeypatch):
    """A server for the PostgreSQL kind, named in the environment (this process's and, through
    it, the crash points' processes'), with its base copy's path; its DSN."""
    with serving(SCHEMA) as dsn:
        monkeypatch.setenv(SOURCE_VARIABLE, dsn)
        monkeypatch.setenv(SOURCE_COPY_VARIABLE, str(tmp_path / "server-base"))
        yield dsn
