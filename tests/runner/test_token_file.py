"""Restart token files: the overrides read right, every malformed file refused at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakerep.token_file import (
    CURRENT_RESTART,
    TokenFile,
    TokenFileError,
    TokenPair,
    parse_token_text,
    read_token_file,
    write_token_file,
)

REGISTERED = {"SALES.ORDERS", "SALES.ORDER_LINES", "SALES.CUSTOMERS"}
T1 = "0000000000000001A2B0"
T2 = "0000000000000001A2F8"
T3 = "00000000000000010000"
T4 = "00000000000000020000"


def parse(*lines: str) -> TokenFile:
    return parse_token_text("".join(f"{line}\n" for line in lines), path="s.tok", registered=REGISTERED)


# --- valid files


def test_explicit_overrides_only_in_file_order():
    tokens = parse(
        "SALES.ORDERS=" + T1,
        "SALES.ORDERS=" + T2,
        "SALES.CUSTOMERS=" + T3,
        "SALES.CUSTOMERS=" + T4,
    )
    assert tokens.explicit == {"SALES.ORDERS": TokenPair(T1, T2), "SALES.CUSTOMERS": TokenPair(T3, T4)}
    assert list(tokens.explicit) == ["SALES.ORDERS", "SALES.CUSTOMERS"]
    assert tokens.special is None
    assert not tokens.is_empty()


def test_special_override_only():
    tokens = parse("RESTART1=" + T3, "RESTART2=" + T4)
    assert tokens == TokenFile({}, TokenPair(T3, T4))
    assert not tokens.is_empty()


def test_special_and_explicit_overrides_in_any_order():
    tokens = parse(
        "SALES.ORDERS=" + T1,
        "SALES.ORDERS=" + T2,
        "RESTART1=" + T3,
        "RESTART2=" + T4,
        "SALES.CUSTOMERS=" + T3,
        "SALES.CUSTOMERS=" + T4,
    )
    assert tokens.special == TokenPair(T3, T4)
    assert tokens.explicit == {"SALES.ORDERS": TokenPair(T1, T2), "SALES.CUSTOMERS": TokenPair(T3, T4)}


@pytest.mark.parametrize(
    ("restart1", "restart2"),
    [(CURRENT_RESTART, CURRENT_RESTART), (T3, CURRENT_RESTART), ("current_restart", T4)],
    ids=["both", "restart2", "restart1-lower-case"],
)
def test_current_restart_in_the_special_override(restart1, restart2):
    tokens = parse(f"RESTART1={restart1}", f"RESTART2={restart2}")
    assert tokens.special == TokenPair(restart1.upper(), restart2.upper())


def test_lower_case_and_spacing_are_normalized():
    text = (
        "  sales.orders = 0000000000000001a2b0  \r\n"
        "\tSales.Orders=0000000000000001a2f8\r\n"
        "restart1 =abcdef0123456789abcd\r\n"
        "Restart2= current_restart\r\n"
    )
    tokens = parse_token_text(text, path="s.tok", registered=REGISTERED)
    assert tokens.explicit == {"SALES.ORDERS": TokenPair(T1, T2)}
    assert tokens.special == TokenPair("ABCDEF0123456789ABCD", CURRENT_RESTART)


def test_comments_between_statements():
    tokens = parse(
        "<!-- restart tokens for session s",
        "<!--",
        "SALES.ORDERS=" + T1,
        "SALES.ORDERS=" + T2,
        "   <!-- indented, and SALES.CUSTOMERS=nonsense is no statement",
        "<!-- a second comment",
        "RESTART1=" + T3,
        "RESTART2=" + T4,
        "<!-- last",
    )
    assert tokens == TokenFile({"SALES.ORDERS": TokenPair(T1, T2)}, TokenPair(T3, T4))


def test_trailing_blank_lines():
    tokens = parse("SALES.ORDERS=" + T1, "SALES.ORDERS=" + T2, "", "   ", "<!-- after the blanks", "", "\t")
    assert tokens.explicit == {"SALES.ORDERS": TokenPair(T1, T2)}


def test_no_final_newline():
    text = f"SALES.ORDERS={T1}\nSALES.ORDERS={T2}"
    assert parse_token_text(text, path="s.tok", registered=REGISTERED).explicit == {
        "SALES.ORDERS": TokenPair(T1, T2)
    }


def test_absent_file_is_no_overrides(tmp_path: Path):
    assert read_token_file(None, REGISTERED).is_empty()
    assert read_token_file(tmp_path / "missing.tok", REGISTERED) == TokenFile()


@pytest.mark.parametrize(
    "text",
    ["", "\n\n  \n", "<!-- nothing to override\n", "<!-- a\n\n<!-- b\n\n"],
    ids=["empty", "blank-lines", "comment", "comments-and-blanks"],
)
def test_empty_file_is_no_overrides(tmp_path: Path, text: str):
    path = tmp_path / "s.tok"
    path.write_text(text)
    assert read_token_file(path, REGISTERED).is_empty()


def test_read_token_file_names_the_file_in_errors(tmp_path: Path):
    path = tmp_path / "s.tok"
    path.write_text(f"\ufeffSALES.ORDERS={T1}\nSALES.ORDERS=XYZ\n")
    with pytest.raises(TokenFileError) as raised:
        read_token_file(path, REGISTERED)
    assert str(raised.value) == f"{path}:2: token 'XYZ' is not 20 hex digits"
    assert isinstance(raised.value, ValueError)
    assert (raised.value.path, raised.value.line) == (str(path), 2)


# --- malformed files: one case per kind of mistake

ORDERS1, ORDERS2 = "SALES.ORDERS=" + T1, "SALES.ORDERS=" + T2
SPECIAL1, SPECIAL2 = "RESTART1=" + T3, "RESTART2=" + T4

MALFORMED = [
    pytest.param(
        [ORDERS1, "SALES.CUSTOMERS=" + T3, "SALES.CUSTOMERS=" + T4],
        1,
        "RESTART2 line of the explicit override for SALES.ORDERS is missing (line 2 is SALES.CUSTOMERS=...)",
        id="explicit-pair-interrupted",
    ),
    pytest.param(
        ["<!-- c", ORDERS1, ORDERS2, "SALES.CUSTOMERS=" + T3, "", "<!-- c"],
        4,
        "RESTART2 line of the explicit override for SALES.CUSTOMERS is missing (the file ends)",
        id="explicit-pair-unfinished-at-end",
    ),
    pytest.param(
        [ORDERS1, "<!-- c", SPECIAL1, SPECIAL2],
        1,
        "RESTART2 line of the explicit override for SALES.ORDERS is missing (line 3 is RESTART1=...)",
        id="explicit-pair-interrupted-after-comment",
    ),
    pytest.param(
        [ORDERS1, "<!-- c"],
        1,
        "RESTART2 line of the explicit override for SALES.ORDERS is missing (the file ends)",
        id="explicit-pair-unfinished-before-comment",
    ),
    pytest.param(
        [SPECIAL1, ORDERS1, ORDERS2],
        1,
        "RESTART2 line of the special override is missing",
        id="special-pair-interrupted",
    ),
    pytest.param(
        [ORDERS1, ORDERS2, SPECIAL1],
        3,
        "RESTART2 line of the special override is missing (the file ends)",
        id="special-pair-unfinished-at-end",
    ),
    pytest.param(
        [SPECIAL1, SPECIAL1, SPECIAL2],
        1,
        "RESTART2 line of the special override is missing (line 2 is RESTART1=...)",
        id="restart1-twice",
    ),
    pytest.param(
        [ORDERS1, SPECIAL2],
        1,
        "RESTART2 line of the explicit override for SALES.ORDERS is missing (line 2 is RESTART2=...)",
        id="explicit-then-restart2",
    ),
    pytest.param(
        [ORDERS1, ORDERS2, SPECIAL1, SPECIAL2, SPECIAL1, SPECIAL2],
        5,
        "a second special override (the first is at line 3)",
        id="second-special-override",
    ),
    pytest.param([SPECIAL2], 1, "RESTART2 without a RESTART1 line before it", id="restart2-alone"),
    pytest.param(
        [SPECIAL1, SPECIAL2, SPECIAL2],
        3,
        "RESTART2 without a RESTART1 line before it",
        id="restart2-after-a-full-special-override",
    ),
    pytest.param(
        [ORDERS1, ORDERS2, "SALES.CUSTOMERS=" + T3, "SALES.CUSTOMERS=" + T4, ORDERS1, ORDERS2],
        5,
        "SALES.ORDERS is overridden twice (first at line 1)",
        id="source-overridden-twice",
    ),
    pytest.param(
        [ORDERS1, ORDERS2, ORDERS1],
        3,
        "SALES.ORDERS is overridden twice (first at line 1)",
        id="source-on-three-lines",
    ),
    pytest.param(
        ["sales.nope=" + T1, "SALES.NOPE=" + T2],
        1,
        "SALES.NOPE is not a registered source",
        id="unregistered-source",
    ),
    pytest.param([ORDERS1, "SALES.ORDERS=XYZ"], 2, "token 'XYZ' is not 20 hex digits", id="token-not-hex"),
    pytest.param(
        [ORDERS1, "SALES.ORDERS=" + T2[:-1]],
        2,
        f"token '{T2[:-1]}' is not 20 hex digits",
        id="token-19-digits",
    ),
    pytest.param(
        [ORDERS1, "SALES.ORDERS=" + T2 + "0"],
        2,
        f"token '{T2}0' is not 20 hex digits",
        id="token-21-digits",
    ),
    pytest.param(
        ["RESTART1=" + "0x" + T3[2:], SPECIAL2], 1, "is not 20 hex digits", id="special-token-not-hex"
    ),
    pytest.param([ORDERS1, "SALES.ORDERS " + T2], 2, "line is not NAME=TOKEN", id="no-equals-sign"),
    pytest.param(["SALES.ORDERS=", ORDERS2], 1, "line is not NAME=TOKEN", id="no-token"),
    pytest.param(["=" + T1, ORDERS2], 1, "line is not NAME=TOKEN", id="no-name"),
    pytest.param(
        ["SALES.ORDERS=CURRENT_RESTART", ORDERS2],
        1,
        "CURRENT_RESTART is only allowed in the special override",
        id="current-restart-in-explicit",
    ),
    pytest.param(
        [ORDERS1, "SALES.ORDERS=current_restart"],
        2,
        "CURRENT_RESTART is only allowed in the special override",
        id="current-restart-lower-case-in-explicit",
    ),
    pytest.param(
        ["", ORDERS1, ORDERS2], 1, "blank line before the first statement", id="blank-line-at-start"
    ),
    pytest.param(
        ["<!-- c", "  ", ORDERS1, ORDERS2],
        2,
        "blank line before the first statement",
        id="blank-line-after-leading-comment",
    ),
    pytest.param(
        [ORDERS1, ORDERS2, "", SPECIAL1, SPECIAL2],
        3,
        "blank line between statements",
        id="blank-line-between-statements",
    ),
    pytest.param(
        [ORDERS1, ORDERS2, "", "", "<!-- c", SPECIAL1, SPECIAL2],
        3,
        "blank line between statements",
        id="blank-lines-then-comment-between-statements",
    ),
    pytest.param(
        [ORDERS1, "", ORDERS2],
        2,
        "blank line inside the explicit override for SALES.ORDERS",
        id="blank-line-inside-explicit-pair",
    ),
    pytest.param(
        [SPECIAL1, "", "<!-- c", SPECIAL2],
        2,
        "blank line inside the special override",
        id="blank-line-inside-special-pair",
    ),
    pytest.param(
        [ORDERS1, "<!-- c", "", ORDERS2],
        2,
        "comment line inside the explicit override for SALES.ORDERS",
        id="comment-then-blank-line-inside-pair",
    ),
    pytest.param(
        [ORDERS1, "<!-- c", ORDERS2],
        2,
        "comment line inside the explicit override for SALES.ORDERS",
        id="comment-inside-explicit-pair",
    ),
    pytest.param(
        [SPECIAL1, "  <!-- c", SPECIAL2],
        2,
        "comment line inside the special override",
        id="comment-inside-special-pair",
    ),
]


@pytest.mark.parametrize(("lines", "line", "reason"), MALFORMED)
def test_malformed_file_is_refused_at_its_line(lines: list[str], line: int, reason: str):
    with pytest.raises(TokenFileError) as raised:
        parse(*lines)
    assert raised.value.line == line
    assert reason in raised.value.reason
    assert str(raised.value) == f"s.tok:{line}: {raised.value.reason}"


# --- writing


def test_write_then_read_round_trip(tmp_path: Path):
    path = tmp_path / "s.tok"
    path.write_text("old content\n")
    explicit = {"SALES.ORDERS": TokenPair(T1, T2), "SALES.CUSTOMERS": TokenPair(T3, T4)}
    write_token_file(path, explicit, header="restart tokens for session s\nwritten by lakerep")

    assert path.read_text() == (
        "<!-- restart tokens for session s\n"
        "<!-- written by lakerep\n"
        f"SALES.CUSTOMERS={T3}\n"
        f"SALES.CUSTOMERS={T4}\n"
        f"SALES.ORDERS={T1}\n"
        f"SALES.ORDERS={T2}\n"
    )
    assert read_token_file(path, REGISTERED) == TokenFile(explicit)
    assert [p.name for p in tmp_path.iterdir()] == ["s.tok"]  # no temporary file left


def test_write_normalizes_to_upper_case(tmp_path: Path):
    path = tmp_path / "s.tok"
    write_token_file(path, {"sales.orders": TokenPair(T1.lower(), T2.lower())}, header="")
    assert read_token_file(path, REGISTERED).explicit == {"SALES.ORDERS": TokenPair(T1, T2)}


@pytest.mark.parametrize(
    "explicit",
    [
        {"SALES.ORDERS": TokenPair(CURRENT_RESTART, T2)},
        {"SALES.ORDERS": TokenPair(T1, "XYZ")},
        {"SALES.ORDERS": TokenPair(T1, T2), "sales.orders": TokenPair(T3, T4)},
        {"RESTART1": TokenPair(T1, T2)},
    ],
    ids=["current-restart", "bad-token", "same-source-twice", "special-name"],
)
def test_write_refuses_what_would_not_read_back(tmp_path: Path, explicit: dict[str, TokenPair]):
    path = tmp_path / "s.tok"
    with pytest.raises(ValueError, match="refusing to write token file"):
        write_token_file(path, explicit, header="h")
    assert list(tmp_path.iterdir()) == []


class StateRows:
    """A lake whose capture_state holds `rows` (source_owner, source_table, restart1, restart2)."""

    def __init__(self, rows: list[tuple]) -> None:
        self.rows = rows

    def sql(self, statement: str):
        return self

    def collect(self) -> list[tuple]:
        return self.rows


def test_recover_writes_no_override_for_a_source_without_tokens_and_names_it(tmp_path: Path, monkeypatch):
    """A source of which nothing committed was read yet has a null token in the state."""
    from lakerep import session

    rows = [
        ("SALES", "ORDERS", T1, T2),
        ("SALES", "CUSTOMERS", None, None),
        ("SALES", "ORDER_LINES", T3, None),
    ]
    monkeypatch.setattr(session, "lake_session", lambda: StateRows(rows))
    monkeypatch.setattr(session, "relation_name", lambda model: model)
    path = tmp_path / "recovered.tok"
    session._write_state_to_token_file("s1", path)
    text = path.read_text()
    assert (
        "<!-- no restart point in the state yet, so no override: SALES.CUSTOMERS, SALES.ORDER_LINES" in text
    )
    assert read_token_file(path, registered=REGISTERED).explicit == {"SALES.ORDERS": TokenPair(T1, T2)}


def test_recover_refuses_a_token_file_in_a_folder_that_does_not_exist_before_its_cycle(tmp_path: Path):
    from lakerep.session import SessionStart, TokenFileNeeded, run_session

    with pytest.raises(TokenFileNeeded, match=r"its folder .*missing does not exist"):
        run_session(SessionStart("s1", "recover", tmp_path / "missing" / "recovered.tok"))
