"""Ctrl-C on a running session: starting Spark leaves the session's SIGINT handler in place
(finish the cycle, then stop), and a dbt command cut off by an interrupt fails with a line that
names it."""

from __future__ import annotations

import signal
from types import SimpleNamespace

import pytest

import lakerep.lake
from lakerep import dbt


def test_starting_the_lake_keeps_the_sigint_handler_spark_replaces(monkeypatch, tmp_path):
    def start_spark(macro, macro_args):
        # PySpark's SparkContext, as it starts on the main thread, puts in a handler that cancels
        # every job and raises KeyboardInterrupt
        signal.signal(signal.SIGINT, lambda *_: handled.append("spark's"))

    builder = SimpleNamespace(getOrCreate=lambda: "the session")
    monkeypatch.setattr(lakerep.lake, "_landing_tables_ready", False)
    monkeypatch.setattr(lakerep.lake, "lake_home", lambda: tmp_path)
    monkeypatch.setattr(lakerep.lake.dbt, "run_operation", start_spark)
    monkeypatch.setattr("pyspark.sql.SparkSession.builder", builder)
    handled = []
    previous = signal.signal(signal.SIGINT, lambda *_: handled.append("the session's"))
    try:
        assert lakerep.lake.lake_session() == "the session"
        signal.raise_signal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert handled == ["the session's"]


@pytest.mark.parametrize("exception", [KeyboardInterrupt(), RuntimeError("")])
def test_a_dbt_command_ended_by_an_exception_without_text_names_its_type(exception):
    outcome = SimpleNamespace(exception=exception, result=None, success=False)
    assert dbt._failure_detail(outcome) == type(exception).__name__
