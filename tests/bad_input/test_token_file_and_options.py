"""Bad token files and options of `lakerep run` and `lakerep prune`, and a bad retention_limit var:
each is refused with one line naming the file and line, the option or the var, before a lock is
taken or Spark starts. No Spark here: a cycle or dbt starting fails the test.

Before these checks: bytes that are not UTF-8 gave Python's decode error without the file's name;
a source registered in mixed case, named in a token file, gave a KeyError traceback; nan as an
interval ran cycles back to back or never pruned; a --retention-limit past what a timedelta holds
overflowed inside dbt, and a retention_limit var of "abc" became 0 minutes, pruning every
retained change.
"""

from __future__ import annotations

import datetime
import json
import re
import types
from pathlib import Path

import pytest
from dbt_common.clients.jinja import MacroReturn, get_dbt_macro_name, get_environment
from dbt_common.exceptions import CompilationError
from refusals import PRUNE, forbid_starting_anything, lakerep_command

import lakerep
from lakerep import PROJECT_DIR, session
from lakerep.cli import EXIT_USER_ERROR, MAX_RETENTION_LIMIT
from lakerep.registrations import Registration
from lakerep.session import SessionStart, run_session
from lakerep.token_file import TokenFileError, TokenPair, read_token_file, write_token_file

REGISTERED = {"SALES.ORDERS", "SALES.CUSTOMERS"}
T1 = "0000000000000001A2B0"
T2 = "0000000000000001A2F8"
RETENTION_MACRO = PROJECT_DIR / "macros" / "apply" / "lakerep_retention_cutoff.sql"
MINUTES_MACRO = PROJECT_DIR / "macros" / "common" / "lakerep_whole_minutes_var.sql"
NUMBER_MACRO = PROJECT_DIR / "macros" / "common" / "lakerep_whole_number_var.sql"


@pytest.fixture(autouse=True)
def no_spark(monkeypatch):
    forbid_starting_anything(monkeypatch, PRUNE)


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEREP_HOME", str(tmp_path / "lake"))
    return tmp_path / "lake"


def error_lines(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith(("lakerep:", "Error:"))]


# --- token files


@pytest.mark.parametrize(
    ("data", "line", "column"),
    [
        (b"\xff" + f"SALES.ORDERS={T1}\n".encode(), 1, 1),
        (f"SALES.ORDERS={T1}\nSALES.ORDERS={T2[:5]}".encode() + b"\xe9" + T2[6:].encode(), 2, 19),
        (b"\xef\xbb\xbf<!-- caf\xe9\n" + f"SALES.ORDERS={T1}\n".encode(), 1, 9),
        (f"<!-- ok\nSALES.ORDERS={T1}\n".encode() + b"SALES.ORDERS=\xc3\x28", 3, 14),
    ],
    ids=["first-byte", "inside-a-token", "after-a-byte-order-mark", "broken-sequence"],
)
def test_bytes_that_are_not_utf8_are_refused_at_their_line(
    tmp_path: Path, data: bytes, line: int, column: int
):
    path = tmp_path / "s.tok"
    path.write_bytes(data)
    with pytest.raises(TokenFileError) as raised:
        read_token_file(path, REGISTERED)
    byte = data.removeprefix(b"\xef\xbb\xbf").splitlines()[line - 1][column - 1]
    assert str(raised.value) == f"{path}:{line}: byte 0x{byte:02X} at column {column} is not UTF-8"


def test_a_token_file_that_is_not_utf8_is_one_line_from_the_cli(home: Path):
    home.mkdir()
    path = home / "s.tok"
    path.write_bytes(f"SALES.ORDERS={T1}\n\xff".encode("latin-1"))
    result = lakerep_command("run", "--session", "s1", "--once", "--token-file", str(path))
    assert result.exit_code == EXIT_USER_ERROR
    assert result.output.splitlines() == [f"lakerep: {path}:2: byte 0xFF at column 1 is not UTF-8"]
    assert not (home / "locks").exists()


@pytest.mark.parametrize(
    "name", ["s'.tok", "s\\.tok", "s`.tok", "s\n.tok"], ids=["quote", "backslash", "backtick", "newline"]
)
def test_a_token_file_name_is_shown_on_one_line(tmp_path: Path, name: str):
    path = tmp_path / name
    path.write_text(f"SALES.ORDERS={T1}\n", encoding="utf-8")
    with pytest.raises(TokenFileError) as raised:
        read_token_file(path, REGISTERED)
    shown = str(path) if str(path).isprintable() else repr(str(path))
    assert str(raised.value) == (
        f"{shown}:1: RESTART2 line of the explicit override for SALES.ORDERS is missing (the file ends)"
    )


@pytest.mark.parametrize(
    ("lines", "line", "reason"),
    [
        ([f"SALES.ORD'ERS={T1}"], 1, "SALES.ORD'ERS is not a registered source"),
        ([f"SALES.ORD\\ERS={T1}"], 1, "SALES.ORD\\ERS is not a registered source"),
        ([f"SALES.ORD`ERS={T1}"], 1, "SALES.ORD`ERS is not a registered source"),
        ([f"SALES.ORD\x1b[2KERS={T1}"], 1, "'SALES.ORD\\x1b[2KERS' is not a registered source"),
        ([f"SALES.ORDERS={T1}", f"SALES.ORDERS={T2[:-1]}'"], 2, f'token "{T2[:-1]}\'" is not 20 hex digits'),
        (
            [f"SALES.ORDERS={T1}", f"SALES.ORDERS={T2[:-1]}\\"],
            2,
            f"token '{T2[:-1]}\\\\' is not 20 hex digits",
        ),
        ([f"SALES.ORDERS={T1}", f"SALES.ORDERS={T2[:-1]}`"], 2, f"token '{T2[:-1]}`' is not 20 hex digits"),
        (
            [f"SALES.ORDERS={T1}", f"SALES.ORDERS={T2[:10]}", T2[10:]],
            2,
            f"token '{T2[:10]}' is not 20 hex digits",
        ),
    ],
    ids=[
        "quote-in-a-name",
        "backslash-in-a-name",
        "backtick-in-a-name",
        "escape-sequence-in-a-name",
        "quote-in-a-token",
        "backslash-in-a-token",
        "backtick-in-a-token",
        "newline-in-a-token",
    ],
)
def test_quotes_backslashes_backticks_and_newlines_in_a_token_file(
    tmp_path: Path, lines: list[str], line: int, reason: str
):
    path = tmp_path / "s.tok"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(TokenFileError) as raised:
        read_token_file(path, REGISTERED)
    assert str(raised.value) == f"{path}:{line}: {reason}"
    assert "\n" not in str(raised.value) and "\x1b" not in str(raised.value)


def test_a_token_file_that_cannot_be_read_is_one_line(tmp_path: Path):
    with pytest.raises(ValueError) as raised:
        read_token_file(tmp_path, REGISTERED)
    assert str(raised.value) == f"token file {tmp_path} cannot be read: Is a directory"


def registration(owner: str, table: str) -> Registration:
    return Registration(owner, table, (), (), None, False, True, False, False)


def test_a_source_registered_in_mixed_case_is_named_in_any_case(home: Path, tmp_path: Path, monkeypatch):
    """Source names are matched exactly in the models (as registered); the token file reads them
    case-insensitively, so a name is kept as registered and reaches the run's vars."""
    path = tmp_path / "s.tok"
    path.write_text(f"SALES.ORDERS={T1}\nsales.orders={T2}\n", encoding="utf-8")
    registered = {
        "Sales.Orders": registration("Sales", "Orders"),
        "public.stock": registration("public", "stock"),
    }
    run_vars = []

    def cycle(cycle_home, cycle_vars, dbt_args):
        run_vars.append(cycle_vars)
        return session.CycleReport(1, cycle_vars["lakerep_run_id"], False, 0, 0, 0, None, None)

    monkeypatch.setattr(session, "load_registrations", lambda: registered)
    monkeypatch.setattr(session, "_cycle", cycle)
    run_session(SessionStart("s1", token_file=path, once=True))
    assert run_vars[0]["lakerep_restart_tokens"]["explicit"] == [
        {"source_owner": "Sales", "source_table": "Orders", "restart1": T1, "restart2": T2}
    ]


def test_restart1_after_restart2_is_a_state_recover_writes(tmp_path: Path):
    """Not refused: a source with no UOW in flight has RESTART1 = the highest position read, after
    RESTART2 = the highest commit read (ADR 0003), and recover writes that state here for the
    next run to read. Only the log can tell whether a UOW committed between the two."""
    path = tmp_path / "s.tok"
    write_token_file(path, {"SALES.ORDERS": TokenPair(T2, T1)}, header="recovered")
    assert read_token_file(path, REGISTERED).explicit == {"SALES.ORDERS": TokenPair(T2, T1)}


# --- intervals


@pytest.mark.parametrize("option", ["--commit-interval", "--prune-interval", "--test-interval"])
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "-1", "-0.5"])
def test_an_interval_that_is_no_finite_number_of_seconds_is_refused(home: Path, option: str, value: str):
    result = lakerep_command("run", "--session", "s1", "--once", option, value)
    assert result.exit_code == EXIT_USER_ERROR, result.output
    shown = repr(float(value))
    assert result.output.splitlines() == [
        f"lakerep: {option} is {shown}: give seconds, a finite number, 0 or more"
    ]
    assert not (home / "locks").exists()


@pytest.mark.parametrize(
    "value", ["1'", "1\\", "1`", "1\n0", "abc"], ids=["quote", "backslash", "backtick", "newline", "text"]
)
def test_an_interval_that_is_no_number_is_refused(home: Path, value: str):
    result = lakerep_command("run", "--session", "s1", "--once", "--commit-interval", value)
    assert result.exit_code == EXIT_USER_ERROR
    assert error_lines(result) == [
        f"Error: Invalid value for '--commit-interval': {value!r} is not a valid float."
    ]


@pytest.mark.parametrize(
    ("value", "shown"),
    [(".nan", "nan"), (".inf", "inf"), ("-5", "-5"), ("'abc'", "'abc'"), ("true", "True"), ("null", "None")],
)
def test_an_interval_var_that_is_no_finite_number_of_seconds_is_refused(
    home: Path, tmp_path: Path, monkeypatch, value: str, shown: str
):
    project = tmp_path / "project"
    project.mkdir()
    (project / "dbt_project.yml").write_text(
        f"vars:\n  commit_interval: 30\n  prune_interval: {value}\n  test_interval: 3600\n", encoding="utf-8"
    )
    monkeypatch.setattr(lakerep, "PROJECT_DIR", project)
    with pytest.raises(ValueError) as raised:
        run_session(SessionStart("s1"))
    assert (
        str(raised.value)
        == f"var prune_interval (dbt_project.yml) is {shown}: give seconds, a finite number, 0 or more"
    )
    assert not (home / "locks").exists()


# --- retention limit


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (
            str(MAX_RETENTION_LIMIT + 1),
            f"{MAX_RETENTION_LIMIT + 1} is not in the range 0<=x<={MAX_RETENTION_LIMIT}.",
        ),
        ("9" * 30, f"{'9' * 30} is not in the range 0<=x<={MAX_RETENTION_LIMIT}."),
        ("-1", f"-1 is not in the range 0<=x<={MAX_RETENTION_LIMIT}."),
        ("1'", '"1\'" is not a valid integer range.'),
        ("1\\", "'1\\\\' is not a valid integer range."),
        ("1`", "'1`' is not a valid integer range."),
        ("1\n0", "'1\\n0' is not a valid integer range."),
    ],
    ids=["one-past-a-timedelta", "huge", "negative", "quote", "backslash", "backtick", "newline"],
)
def test_a_retention_limit_option_past_what_a_timedelta_holds_is_refused(home: Path, value: str, reason: str):
    result = lakerep_command("prune", "--retention-limit", value)
    assert result.exit_code == EXIT_USER_ERROR
    assert error_lines(result) == [f"Error: Invalid value for '--retention-limit': {reason}"]


def call_macro(path: Path, name: str, variables: dict, *args: object) -> object:
    """What the macro `name` of the file at `path` returns, rendered by dbt's Jinja environment
    with the dbt context functions these macros call (`var` reads `variables`), and the project's
    lakerep_whole_minutes_var and lakerep_whole_number_var callable as dbt makes a macro callable
    (its return() is its value)."""

    def macro_return(value):
        raise MacroReturn(value)

    def raise_compiler_error(message):
        raise CompilationError(message)

    context = {
        "execute": True,
        "var": variables.__getitem__,
        "modules": types.SimpleNamespace(datetime=datetime, re=re),
        "exceptions": types.SimpleNamespace(raise_compiler_error=raise_compiler_error),
        "return": macro_return,
        "tojson": json.dumps,
        "lakerep_whole_minutes_var": lambda *inner: call_macro(
            MINUTES_MACRO, "lakerep_whole_minutes_var", variables, *inner
        ),
        "lakerep_whole_number_var": lambda *inner: call_macro(
            NUMBER_MACRO, "lakerep_whole_number_var", variables, *inner
        ),
    }
    template = get_environment().from_string(path.read_text(encoding="utf-8"), globals=context)
    with pytest.raises(MacroReturn) as returned:
        getattr(template.module, get_dbt_macro_name(name))(*args)
    return returned.value.value


def retention_cutoff(limit: object, synchtime: datetime.datetime) -> str:
    """What the lakerep_retention_cutoff macro returns with var retention_limit = limit."""
    return call_macro(RETENTION_MACRO, "lakerep_retention_cutoff", {"retention_limit": limit}, synchtime)


SYNCHTIME = datetime.datetime(2026, 1, 1, 4, 2, 50)


@pytest.mark.parametrize(
    ("limit", "cutoff"),
    [
        (10_800, "2025-12-24 16:02:50"),
        ("60", "2026-01-01 03:02:50"),
        (0, "2026-01-01 04:02:50"),
        (MAX_RETENTION_LIMIT, "0001-01-01 00:00:50"),  # reaching past year 1: everything is kept
    ],
    ids=["default", "digits-string", "zero", "most"],
)
def test_the_retention_cutoff_of_a_whole_number_of_minutes(limit, cutoff: str):
    assert retention_cutoff(limit, SYNCHTIME) == cutoff


@pytest.mark.parametrize(
    ("limit", "shown"),
    [
        ("abc", '"abc"'),
        ("", '""'),
        ("-1", '"-1"'),
        (" 60", '" 60"'),
        (-1, "-1"),
        (1.5, "1.5"),
        (True, "true"),
        (None, "null"),
        (MAX_RETENTION_LIMIT + 1, str(MAX_RETENTION_LIMIT + 1)),
        ("60'", '"60\'"'),
        ("60\\", '"60\\\\"'),
        ("60`", '"60`"'),
        ("60\n", '"60\\n"'),
    ],
    ids=[
        "text",
        "empty",
        "negative-string",
        "space",
        "negative",
        "fraction",
        "boolean",
        "null",
        "past-a-timedelta",
        "quote",
        "backslash",
        "backtick",
        "newline",
    ],
)
def test_a_retention_limit_var_that_is_no_whole_number_of_minutes_is_a_compile_error(limit, shown: str):
    with pytest.raises(CompilationError) as raised:
        retention_cutoff(limit, SYNCHTIME)
    assert raised.value.msg == (
        f"var retention_limit must be a whole number of minutes from 0 to {MAX_RETENTION_LIMIT}, not {shown}"
    )


def test_a_lag_limit_var_that_is_no_whole_number_of_minutes_is_a_compile_error():
    """restart_decisions reads LAG_LIMIT through the same check (it took `| int`: "abc" was 0,
    and every warm start was refused as more than 0 minutes behind)."""
    assert call_macro(MINUTES_MACRO, "lakerep_whole_minutes_var", {"lag_limit": "30"}, "lag_limit") == 30
    for value, shown in (("abc", '"abc"'), (-5, "-5"), (2.5, "2.5")):
        with pytest.raises(CompilationError) as raised:
            call_macro(MINUTES_MACRO, "lakerep_whole_minutes_var", {"lag_limit": value}, "lag_limit")
        assert raised.value.msg == (
            f"var lag_limit must be a whole number of minutes from 0 to {MAX_RETENTION_LIMIT}, not {shown}"
        )


def compact_min_files(value: object) -> object:
    """What lakerep_compact_small_files takes var compact_min_files to be."""
    return call_macro(
        NUMBER_MACRO,
        "lakerep_whole_number_var",
        {"compact_min_files": value},
        "compact_min_files",
        "files",
        2,
    )


def test_a_compact_min_files_var_that_is_no_whole_number_from_2_is_a_compile_error():
    """A prune cycle compacts the tables holding this many files; 0 or 1 would rewrite every
    table in every prune, and Jinja's `| int` would make "abc" 0."""
    for value, files in ((50, 50), ("2", 2)):
        assert compact_min_files(value) == files
    for value, shown in (("abc", '"abc"'), (1, "1"), (0, "0"), (-5, "-5"), (2.5, "2.5"), (None, "null")):
        with pytest.raises(CompilationError) as raised:
            compact_min_files(value)
        assert (
            raised.value.msg
            == f"var compact_min_files must be a whole number of files, 2 or more, not {shown}"
        )


@pytest.mark.parametrize("name", ["retention_limit", "lag_limit"])
def test_a_minutes_var_is_read_only_through_its_check(name: str):
    readers = [
        path.relative_to(PROJECT_DIR).as_posix()
        for folder in ("macros", "models")
        for path in sorted((PROJECT_DIR / folder).rglob("*.sql"))
        if re.search(rf"\bvar\(\s*['\"]{name}['\"]", path.read_text(encoding="utf-8"))
    ]
    assert readers == []
    callers = [
        path.relative_to(PROJECT_DIR).as_posix()
        for folder in ("macros", "models")
        for path in sorted((PROJECT_DIR / folder).rglob("*.sql"))
        if f"lakerep_whole_minutes_var('{name}')" in path.read_text(encoding="utf-8")
    ]
    assert (
        callers
        == {
            "retention_limit": ["macros/apply/lakerep_retention_cutoff.sql"],
            "lag_limit": ["models/control/restart_decisions.sql"],
        }[name]
    )
