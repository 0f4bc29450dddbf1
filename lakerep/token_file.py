"""PowerExchange restart token files: where a CDC session restarts capture, one file per session.

Each override is a pair of consecutive lines; the first line gives RESTART1, the second RESTART2.
An explicit override names one registered source, OWNER.TABLE, on both lines. The special override
is a RESTART1 line then a RESTART2 line; it applies to every source not named explicitly, and a file
holds at most one:

    <!-- comment lines start with <!--
    SALES.ORDERS=0000000000000001A2B0
    SALES.ORDERS=0000000000000001A2F8
    RESTART1=00000000000000010000
    RESTART2=CURRENT_RESTART

A token is 20 hex digits (a log position); only the special override may say CURRENT_RESTART.
Names and tokens are read case-insensitively; a name is kept as its source is registered (the
models match source names exactly), a token in upper case. Comment lines may stand between
overrides, not inside one; blank lines only at the end of the file. An absent or empty file
overrides nothing. Any mistake, bytes that are not UTF-8 included, is a TokenFileError naming the
file and line, and nothing of the file is used.

RESTART1 may be after RESTART2: the session's own state says so for a source with no UOW in
flight (RESTART1 is then the highest position read, ADR 0003), and recover writes the state here.
Whether UOWs committed between the two would be skipped depends on the log, not on the file.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from lakerep.durable import durable_step

CURRENT_RESTART = "CURRENT_RESTART"
COMMENT = "<!--"
_RESTART1, _RESTART2 = "RESTART1", "RESTART2"
_TOKEN = re.compile(r"[0-9A-Fa-f]{20}")


class TokenFileError(ValueError):
    """A malformed token file; str is "path:line: reason"."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{_printable(path)}:{line}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class TokenPair:
    restart1: str
    restart2: str


@dataclass(frozen=True)
class TokenFile:
    explicit: dict[str, TokenPair] = field(default_factory=dict)
    """OWNER.TABLE, as registered -> its override, in file order."""
    special: TokenPair | None = None

    def is_empty(self) -> bool:
        return not self.explicit and self.special is None


@dataclass(frozen=True)
class _FirstHalf:
    """The RESTART1 line of an override, waiting for its RESTART2 line."""

    name: str  # OWNER.TABLE, or RESTART1 for the special override
    token: str
    line: int

    @property
    def partner(self) -> str:
        return _RESTART2 if self.name == _RESTART1 else self.name

    @property
    def what(self) -> str:
        return "the special override" if self.name == _RESTART1 else f"the explicit override for {self.name}"


def read_token_file(path: Path | None, registered: Iterable[str]) -> TokenFile:
    """The overrides in the file at path; none if path is None or there is no file. ValueError
    if it cannot be read."""
    if path is None:
        return TokenFile()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return TokenFile()
    except OSError as error:
        raise ValueError(f"token file {_printable(str(path))} cannot be read: {error.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _not_utf8(str(path), error) from None
    return parse_token_text(text, path=str(path), registered=registered)


def _not_utf8(path: str, error: UnicodeDecodeError) -> TokenFileError:
    """The error naming the line and column of the first byte that is not UTF-8."""
    before = error.object[: error.start]
    column = error.start - before.rfind(b"\n")
    return TokenFileError(
        path,
        before.count(b"\n") + 1,
        f"byte 0x{error.object[error.start]:02X} at column {column} is not UTF-8",
    )


def _printable(text: str) -> str:
    """text as it is if it prints on one line as itself, else as a Python string literal (a
    newline or other control character in a file name would break an error's one line)."""
    return text if text.isprintable() else repr(text)


def parse_token_text(text: str, *, path: str, registered: Iterable[str]) -> TokenFile:
    """The overrides in text; path names the file in errors. Each name is read case-insensitively
    and kept as `registered` spells it."""
    sources = {name.upper(): name for name in registered}
    explicit: dict[str, TokenPair] = {}
    first_lines: dict[str, int] = {}  # source -> line of its override's first half
    special: TokenPair | None = None
    special_line = 0
    pending: _FirstHalf | None = None
    blank = comment = 0  # the first blank line, and comment line inside a pair, since the last statement
    seen_statement = False

    def fail(line: int, reason: str) -> NoReturn:
        raise TokenFileError(path, line, reason)

    # A blank or comment line is a mistake only if a statement follows it: after the last
    # statement, blank lines and comments are the end of the file, and an unfinished pair is
    # reported as such.
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            blank = blank or number
            continue
        if line.startswith(COMMENT):
            comment = comment or (number if pending else 0)
            continue
        if blank and not pending:
            where = "between statements" if seen_statement else "before the first statement"
            fail(blank, f"blank line {where} (blank lines are only allowed at the end of the file)")
        seen_statement = True
        name, token = _statement(line, sources, path=path, number=number)
        if pending is None:
            if name == _RESTART2:
                fail(number, "RESTART2 without a RESTART1 line before it")
            if name == _RESTART1 and special_line:
                fail(number, f"a second special override (the first is at line {special_line})")
            if name in first_lines:
                fail(number, f"{name} is overridden twice (first at line {first_lines[name]})")
            pending = _FirstHalf(name, token, number)
            continue
        if name != pending.partner:
            fail(pending.line, f"RESTART2 line of {pending.what} is missing (line {number} is {name}=...)")
        if blank or comment:
            at, kind = min((at, kind) for at, kind in ((blank, "blank"), (comment, "comment")) if at)
            fail(at, f"{kind} line inside {pending.what} (between its RESTART1 and RESTART2 lines)")
        pair = TokenPair(pending.token, token)
        if pending.name == _RESTART1:
            special, special_line = pair, pending.line
        else:
            explicit[sources[name]], first_lines[name] = pair, pending.line
        pending = None
    if pending:
        fail(pending.line, f"RESTART2 line of {pending.what} is missing (the file ends)")
    return TokenFile(explicit, special)


def _statement(line: str, sources: Mapping[str, str], *, path: str, number: int) -> tuple[str, str]:
    """The upper-case name and token of a NAME=TOKEN line."""

    def fail(reason: str) -> NoReturn:
        raise TokenFileError(path, number, reason)

    name, equals, token = line.partition("=")
    name, token = name.strip().upper(), token.strip()
    if not equals or not name or not token:
        fail("line is not NAME=TOKEN")
    special = name in (_RESTART1, _RESTART2)
    if not special and name not in sources:
        fail(f"{_printable(name)} is not a registered source")
    if token.upper() == CURRENT_RESTART:
        if not special:
            fail("CURRENT_RESTART is only allowed in the special override")
    elif not _TOKEN.fullmatch(token):
        fail(f"token {token!r} is not 20 hex digits")
    return name, token.upper()


def write_token_file(
    path: Path, explicit: Mapping[str, TokenPair], *, header: str, special: TokenPair | None = None
) -> None:
    """Write explicit overrides, sorted by source, then the special override if any, under a
    comment header; atomically replaces path.

    Names and tokens are written in upper case. Refuses (ValueError) what would not read back the
    same, such as CURRENT_RESTART in an explicit override or a token that is not 20 hex digits.
    """
    upper = {name.upper(): TokenPair(p.restart1.upper(), p.restart2.upper()) for name, p in explicit.items()}
    special = TokenPair(special.restart1.upper(), special.restart2.upper()) if special else None
    lines = [f"{COMMENT} {text}".rstrip() for text in header.splitlines()]
    for name in sorted(upper):
        lines += [f"{name}={upper[name].restart1}", f"{name}={upper[name].restart2}"]
    if special is not None:
        lines += [f"{_RESTART1}={special.restart1}", f"{_RESTART2}={special.restart2}"]
    text = "".join(f"{line}\n" for line in lines)
    try:
        parsed = parse_token_text(text, path=str(path), registered=upper)
    except TokenFileError as error:
        raise ValueError(f"refusing to write token file {path}: {error.reason}") from error
    if len(upper) != len(explicit) or parsed != TokenFile(upper, special):
        raise ValueError(f"refusing to write token file {path}: a source name would not read back the same")

    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with open(descriptor, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        with durable_step(f"file-write {path}"):
            os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
