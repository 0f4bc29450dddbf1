"""`lakerep run` refuses what a user got wrong with one line and a documented exit code, before
it starts Spark or touches the lake."""

from __future__ import annotations

import json
import os
import socket

import pytest
from click.testing import CliRunner

from lakerep.cli import EXIT_SESSION_LOCKED, EXIT_USER_ERROR, main


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEREP_HOME", str(tmp_path))
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, ["run", *args])


def test_a_malformed_token_file_names_file_line_and_reason(home):
    token_file = home / "bad.tokens"
    token_file.write_text(
        "SALES.ORDERS=0000000000000001A2B0\nRESTART1=00000000000000010000\n", encoding="utf-8"
    )
    result = run("--session", "s1", "--token-file", str(token_file), "--once")
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.strip().splitlines() == [
        f"lakerep: {token_file}:1: RESTART2 line of the explicit override for SALES.ORDERS is missing "
        "(line 2 is RESTART1=...)"
    ]


def test_a_token_file_naming_an_unregistered_source_is_refused(home):
    token_file = home / "bad.tokens"
    token_file.write_text(
        "SALES.NOPE=0000000000000001A2B0\nSALES.NOPE=0000000000000001A2B0\n", encoding="utf-8"
    )
    result = run("--session", "s1", "--token-file", str(token_file))
    assert result.exit_code == EXIT_USER_ERROR
    assert "SALES.NOPE is not a registered source" in result.output


def test_recover_needs_a_token_file(home):
    result = run("--session", "s1", "--start", "recover")
    assert result.exit_code == EXIT_USER_ERROR
    assert "pass --token-file FILE" in result.output


def test_a_bad_session_name_is_refused(home):
    result = run("--session", "../etc", "--once")
    assert result.exit_code == EXIT_USER_ERROR
    assert "may hold letters, digits, _ and -" in result.output


def test_a_session_held_by_a_live_runner_is_refused(home):
    locks = home / "locks"
    locks.mkdir()
    holder = {"pid": os.getpid(), "host": socket.gethostname(), "since": "2026-11-22T10:00:00Z"}
    (locks / "s1.lock").write_text(json.dumps(holder), encoding="utf-8")
    result = run("--session", "s1", "--once")
    assert result.exit_code == EXIT_SESSION_LOCKED
    assert f"session s1 is already running (pid {os.getpid()}" in result.output


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--start", "hot"], "Invalid value for '--start'"),
        (["--no-such-option"], "No such option '--no-such-option'"),
    ],
    ids=["bad-start-type", "unknown-option"],
)
def test_a_bad_option_is_a_usage_error_not_a_dbt_crash(home, args, reason):
    result = run(*args)
    assert result.exit_code == EXIT_USER_ERROR  # click's own code, 2, is dbt's for a crash
    assert reason in result.output
