"""Shared workloads: generated once per test session, read-only for the tests."""

from __future__ import annotations

import pytest
from workload_support import Run, generate

from lakerep.registrations import Registration, load_registrations


@pytest.fixture(scope="session")
def registrations() -> dict[str, Registration]:
    return load_registrations()


@pytest.fixture(scope="session")
def log_run() -> Run:
    """Log landing order, stopped mid-flight: some transactions are still open."""
    return generate("log")


@pytest.fixture(scope="session")
def commit_run() -> Run:
    """Commit landing order, same seed as log_run: the same log, landed differently."""
    return generate("commit")


@pytest.fixture(scope="session")
def finished_log_run() -> Run:
    return generate("log", finish=True)


@pytest.fixture(scope="session")
def finished_commit_run() -> Run:
    return generate("commit", finish=True)
