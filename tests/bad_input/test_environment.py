"""Environment variables the dbt profile renders into Spark's settings (LAKEREP_HOME, ...): a value
that would end its setting early is refused with one line naming the variable, by every entry
point, before a lock is taken or dbt or Spark start. No Spark here: dbt or Spark starting fails
the test.

Before this check, LAKEREP_HOME='/x"' + newline + 'spark.some.setting: "y' added a Spark setting
of its own to the profile lakerep renders (profile.spark_settings), a quote alone broke it, and
a space or newline split spark.driver.extraJavaOptions into JVM options.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from refusals import OPERATION, PRUNE, forbid_starting_anything

from lakerep.cli import EXIT_USER_ERROR, main
from lakerep.lake import reset_lake
from lakerep.profile import PROFILES_FILE, check_environment, spark_settings
from lakerep.session import SessionStart, run_session

PROFILE_VARIABLES = list(
    dict.fromkeys(re.findall(r"env_var\('(\w+)'", PROFILES_FILE.read_text(encoding="utf-8")))
)

BAD_CHARACTERS = {
    "quote": "'",
    "double-quote": '"',
    "backslash": "\\",
    "backtick": "`",
    "newline": "\n",
    "carriage-return": "\r",
    "tab": "\t",
    "space": " ",
    "escape": "\x1b",
    "nul-like-control": "\x7f",
}


@pytest.fixture(autouse=True)
def no_spark(monkeypatch):
    forbid_starting_anything(monkeypatch, OPERATION, PRUNE)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("LAKEREP_HOME", str(tmp_path / "lake"))
    return tmp_path / "lake"


def refusal(name: str, value: str) -> str:
    index = next(i for i, c in enumerate(value) if c in "'\"\\`" or c.isspace() or not c.isprintable())
    return (
        f"environment variable {name} holds {value[index]!r} (U+{ord(value[index]):04X}) at character "
        f"{index + 1}: profiles.yml renders it into Spark's settings, so it may not hold quotes, "
        "backslashes, backticks, whitespace or control characters"
    )


def test_the_profile_renders_these_variables():
    assert {"LAKEREP_HOME", "LAKEREP_LOG4J", "LAKEREP_SCHEMA", "LAKEREP_TARGET"} <= set(PROFILE_VARIABLES)


def test_a_home_that_would_add_a_spark_setting_is_refused(tmp_path: Path):
    injected = f'{tmp_path}"\n        spark.some.setting: "y'
    with pytest.raises(ValueError) as raised:
        spark_settings("local", {"LAKEREP_HOME": injected})
    assert str(raised.value) == refusal("LAKEREP_HOME", injected)


@pytest.mark.parametrize("name", PROFILE_VARIABLES)
@pytest.mark.parametrize("character", BAD_CHARACTERS.values(), ids=BAD_CHARACTERS.keys())
def test_a_profile_variable_with_a_character_that_ends_a_setting_is_refused(name: str, character: str):
    value = f"ab{character}cd"
    with pytest.raises(ValueError) as raised:
        check_environment({name: value})
    assert str(raised.value) == refusal(name, value)
    assert "\n" not in str(raised.value)


def test_an_empty_profile_variable_is_refused():
    with pytest.raises(ValueError) as raised:
        check_environment({"LAKEREP_HOME": ""})
    assert str(raised.value) == "environment variable LAKEREP_HOME is empty: unset it, or give it a value"


BAD_VALUES = [
    ("LAKEREP_DRIVER_MEMORY", "lots", "a JVM memory size: digits, then k, m, g or t (6g, 512m)"),
    ("LAKEREP_DRIVER_MEMORY", "6gb", "a JVM memory size: digits, then k, m, g or t (6g, 512m)"),
    ("LAKEREP_DRIVER_MEMORY", "0g", "a JVM memory size: digits, then k, m, g or t (6g, 512m)"),
    ("LAKEREP_DRIVER_MEMORY", "4096", "a JVM memory size: digits, then k, m, g or t (6g, 512m)"),
    ("LAKEREP_SHUFFLE_PARTITIONS", "two", "a whole number of partitions, 1 or more"),
    ("LAKEREP_SHUFFLE_PARTITIONS", "0", "a whole number of partitions, 1 or more"),
    ("LAKEREP_SCHEMA", "a.b", "a schema name: letters, digits and underscores, not starting with a digit"),
    ("LAKEREP_SCHEMA", "1lake", "a schema name: letters, digits and underscores, not starting with a digit"),
    ("LAKEREP_TARGET", "prod", "an output of profiles.yml: local or cluster or thrift"),
    ("LAKEREP_THRIFT_PORT", "70000", "a TCP port, 1 to 65535"),
    ("LAKEREP_THRIFT_PORT", "port", "a TCP port, 1 to 65535"),
    ("LAKEREP_CONNECT_PORT", "0", "a TCP port, 1 to 65535"),
    ("LAKEREP_CONNECT_PORT", "sc://host", "a TCP port, 1 to 65535"),
]


@pytest.mark.parametrize(("name", "value", "form"), BAD_VALUES, ids=lambda item: str(item))
def test_a_value_not_of_its_variables_form_is_refused(name: str, value: str, form: str):
    with pytest.raises(ValueError) as raised:
        check_environment({name: value})
    assert str(raised.value) == f"environment variable {name} is {value!r}: it must be {form}"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("LAKEREP_DRIVER_MEMORY", "6g"),
        ("LAKEREP_DRIVER_MEMORY", "512M"),
        ("LAKEREP_DRIVER_MEMORY", "4096m"),
        ("LAKEREP_SHUFFLE_PARTITIONS", "8"),
        ("LAKEREP_SCHEMA", "lakerep_w0"),
        ("LAKEREP_TARGET", "thrift"),
        ("LAKEREP_THRIFT_PORT", "65535"),
        ("LAKEREP_TARGET", "cluster"),
        ("LAKEREP_CONNECT_PORT", "15002"),
    ],
)
def test_values_of_their_variables_form_pass(name: str, value: str):
    check_environment({name: value})


def test_every_command_refuses_a_driver_memory_spark_could_not_start_with(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("LAKEREP_HOME", str(tmp_path / "lake"))
    monkeypatch.setenv("LAKEREP_DRIVER_MEMORY", "lots")
    result = CliRunner().invoke(main, ["run", "--session", "s1", "--once"])
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert result.output.splitlines() == [
        "lakerep: environment variable LAKEREP_DRIVER_MEMORY is 'lots': it must be a JVM memory size: "
        "digits, then k, m, g or t (6g, 512m)"
    ]
    assert list(tmp_path.iterdir()) == []


def test_good_values_render_as_they_are(tmp_path: Path):
    settings = spark_settings(
        "local", {"LAKEREP_HOME": str(tmp_path), "LAKEREP_LOG4J": "/etc/x/log4j2.properties"}
    )
    assert settings["spark.sql.warehouse.dir"] == f"{tmp_path}/warehouse"
    assert settings["spark.driver.extraJavaOptions"] == (
        f"-Duser.timezone=UTC -Dderby.system.home={tmp_path} "
        "-Dlog4j2.configurationFile=/etc/x/log4j2.properties"
    )


COMMANDS = [
    ["run", "--session", "s1", "--once"],
    ["refresh", "--member", "customers_copy"],
    ["mark-external-refresh", "--member", "customers_copy", "--unload-start"],
    ["prune"],
    ["diff"],
    ["generate", "--fresh"],
    ["demo"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command[0])
@pytest.mark.parametrize(
    "character", ["'", "\\", "`", "\n"], ids=["quote", "backslash", "backtick", "newline"]
)
def test_every_command_refuses_a_bad_home_before_it_starts(
    tmp_path: Path, monkeypatch, command: list[str], character: str
):
    home = f"{tmp_path}/la{character}ke"
    monkeypatch.setenv("LAKEREP_HOME", home)
    result = CliRunner().invoke(main, command)
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert result.output.splitlines() == [f"lakerep: {refusal('LAKEREP_HOME', home)}"]
    assert list(tmp_path.iterdir()) == []


def test_the_scenarios_home_is_checked_before_it_is_used(tmp_path: Path, monkeypatch):
    for name in ("LAKEREP_HOME", "DBT_TARGET_PATH", "DBT_LOG_PATH"):
        monkeypatch.setenv(name, str(tmp_path))  # restored after the command sets them
    home = f"{tmp_path}/la\nke"
    result = CliRunner().invoke(main, ["scenarios", "--seed", "1", "--home", home])
    assert result.exit_code == EXIT_USER_ERROR, result.output
    assert result.output.splitlines() == [f"lakerep: {refusal('LAKEREP_HOME', home)}"]


def test_the_runner_and_reset_lake_check_the_environment_themselves(home: Path, monkeypatch):
    monkeypatch.setenv("LAKEREP_SCHEMA", "lakerep`; drop")
    expected = refusal("LAKEREP_SCHEMA", "lakerep`; drop")
    with pytest.raises(ValueError, match=re.escape(expected)):
        run_session(SessionStart("s1", once=True))
    with pytest.raises(ValueError, match=re.escape(expected)):
        reset_lake()
    assert not home.exists()
