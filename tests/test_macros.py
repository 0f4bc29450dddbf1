"""The macros hold to their layout (issue 25): one macro that other files call per file, named
after it, in a family folder (macros/<family>/), and documented with the arguments of its
signature in the family's `_<family>__macros.yml`. Those are the public macros (called from
outside the family) and the family-internal ones that several files of the family share. A
`_` helper lives in the file of the macro it serves and is called only there: Jinja keeps `_`
names private to their file, and sqlfluff's jinja templater, which loads each macro file on its
own, cannot call one from another file (dbt could). dbt's entry points keep dbt's names: the
project's materializations (macros/materializations/, one file each, named after it, as
dbt-spark lays out its own) and adapter overrides (`spark__<name>`, in `spark__<name>.sql`). A
generic data test is documented under dbt's name for it, `test_<name>`, in `<name>.sql`. No
Spark."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
MACROS = ROOT / "macros"
DEFINITION = re.compile(r"\{%-?\s*(macro|test|materialization)\s+(\w+)\s*(?:\((.*?)\))?[^%]*?-?%\}", re.S)
JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.S)
LINE_COMMENT = re.compile(r"(?m)^\s*(--|#).*$")
MATERIALIZATIONS = "materializations"  # the family folder of the materializations


@dataclass(frozen=True)
class Macro:
    name: str  # as dbt names it: a generic test `x` is the macro `test_x`
    kind: str  # macro, test or materialization
    arguments: tuple[str, ...]
    path: Path

    @property
    def family(self) -> str:
        return self.path.relative_to(MACROS).parts[0]

    @property
    def where(self) -> str:
        return self.path.relative_to(ROOT).as_posix()

    @property
    def is_helper(self) -> bool:
        return self.name.startswith("_")

    @property
    def is_entry_point(self) -> bool:
        """Called by dbt under a name dbt gives: a materialization or an adapter override."""
        return self.kind == "materialization" or self.name.startswith("spark__")

    @property
    def is_public(self) -> bool:
        return not self.is_helper and not self.is_entry_point


def argument_names(signature: str) -> tuple[str, ...]:
    """Names of a Jinja signature's arguments (defaults are literals without commas inside
    brackets or quotes: a comma at depth 0 separates arguments)."""
    names, depth, current, quote = [], 0, "", None
    for char in signature:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            names.append(current)
            current = ""
            continue
        current += char
    names.append(current)
    return tuple(name.split("=")[0].strip() for name in names if name.strip())


@cache
def macros() -> tuple[Macro, ...]:
    found = []
    for path in sorted(MACROS.rglob("*.sql")):
        for kind, name, signature in DEFINITION.findall(path.read_text(encoding="utf-8")):
            found.append(
                Macro(
                    name=f"test_{name}" if kind == "test" else name,
                    kind=kind,
                    arguments=argument_names(signature or ""),
                    path=path,
                )
            )
    return tuple(found)


def code(path: Path) -> str:
    """A file's text without its comments (Jinja, SQL and YAML/Python line comments)."""
    return LINE_COMMENT.sub("", JINJA_COMMENT.sub("", path.read_text(encoding="utf-8")))


CALL = re.compile(r"(?<![\w.])(\w+)\s*[(:]|[\"'](\w+)[\"']")


@cache
def names_called() -> dict[Path, frozenset[str]]:
    """The names each file that may call a macro calls (comments left out): models, data tests,
    macros, the dbt project, and the Python that runs or tests it. A name is called as
    `name(`, as a unit test's override or a generic test's use (`name:`), or as a Python string
    (run_operation("name"), dbt.invoke([..., "name"]))."""
    paths = [
        *MACROS.rglob("*.sql"),
        *(ROOT / "models").rglob("*.sql"),
        *(ROOT / "models").rglob("*.yml"),
        *(ROOT / "data-tests").rglob("*.sql"),
        *(ROOT / "data-tests").rglob("*.yml"),
        ROOT / "dbt_project.yml",
        *(ROOT / "lakerep").rglob("*.py"),
        *(ROOT / "lakerep").rglob("*.yml"),
        *(ROOT / "tests").rglob("*.py"),
    ]
    return {
        path: frozenset(name for match in CALL.findall(code(path)) for name in match if name)
        for path in paths
        if path.is_file() and path != Path(__file__).resolve()
    }


def callers_elsewhere(macro: Macro) -> list[str]:
    """The files other than its own that call the macro."""
    return sorted(
        path.relative_to(ROOT).as_posix()
        for path, names in names_called().items()
        if path != macro.path and macro.name in names
    )


def documented(family: str) -> dict[str, list[str]]:
    """The family's `_<family>__macros.yml`: macro name -> documented argument names."""
    path = MACROS / family / f"_{family}__macros.yml"
    if not path.exists():
        return {}
    entries = yaml.safe_load(path.read_text(encoding="utf-8")).get("macros") or []
    return {
        entry["name"]: [argument["name"] for argument in entry.get("arguments") or []] for entry in entries
    }


def by_file() -> dict[Path, list[Macro]]:
    files: dict[Path, list[Macro]] = {}
    for macro in macros():
        files.setdefault(macro.path, []).append(macro)
    return files


def test_macros_live_in_family_folders():
    loose = [path.relative_to(ROOT).as_posix() for path in by_file() if path.parent == MACROS]
    assert not loose, f"macro files outside a family folder (macros/<family>/): {loose}"


def test_a_file_holds_one_public_macro_and_is_named_after_it():
    wrong = []
    for path, defined in by_file().items():
        public = [macro.name for macro in defined if macro.is_public]
        entry_points = [macro for macro in defined if macro.is_entry_point]
        where = path.relative_to(ROOT).as_posix()
        stem = path.stem
        if entry_points:
            allowed = {macro.name for macro in entry_points}
            if public:
                wrong.append(f"{where}: dbt's entry points share the file with public macros {public}")
            elif stem not in allowed:
                wrong.append(f"{where}: a file of dbt's entry points is named {sorted(allowed)}")
        elif len(public) > 1:
            wrong.append(f"{where}: macros {public}: one per file (a helper's name starts with _)")
        elif public:
            expected = public[0].removeprefix("test_") if defined[0].kind == "test" else public[0]
            if stem != expected:
                wrong.append(f"{where}: holds {public[0]}, so it is named {expected}.sql")
        elif stem not in {macro.name for macro in defined}:
            wrong.append(f"{where}: holds only helpers, so it is named after one of them")
    assert not wrong, "\n".join(wrong)


def test_every_public_macro_is_documented_with_its_arguments():
    wrong = []
    for macro in macros():
        if not macro.is_public:
            continue
        docs = documented(macro.family)
        yml = f"macros/{macro.family}/_{macro.family}__macros.yml"
        if macro.name not in docs:
            wrong.append(f"{macro.name} ({macro.where}) is not documented in {yml}")
        elif docs[macro.name] != list(macro.arguments):
            wrong.append(
                f"{macro.name}: {yml} documents arguments {docs[macro.name]}, its signature has "
                f"{list(macro.arguments)}"
            )
    assert not wrong, "\n".join(wrong)


def test_the_macro_docs_name_only_public_macros_of_their_family():
    families = {path.parent.name for path in MACROS.glob("*/_*__macros.yml")}
    wrong = []
    for family in sorted(families):
        public = {macro.name for macro in macros() if macro.is_public and macro.family == family}
        stale = sorted(set(documented(family)) - public)
        if stale:
            wrong.append(
                f"macros/{family}/_{family}__macros.yml documents {stale}: no public macros of {family}"
            )
    assert not wrong, "\n".join(wrong)


def test_helpers_are_called_only_inside_their_file():
    """So never from outside their family either."""
    wrong = [
        f"{macro.name} ({macro.where}) is called from {callers}: a `_` helper is called only in its own file"
        for macro in macros()
        if macro.is_helper and (callers := callers_elsewhere(macro))
    ]
    assert not wrong, "\n".join(wrong) + "\n(drop the _, give it its own file and document it)"


def test_macros_without_a_leading_underscore_are_called_from_other_files():
    """A macro that only its own file calls is a helper: its name starts with `_`. (Generic tests
    are called by what they are: the models' yml uses them.)"""
    wrong = [
        f"{macro.name} ({macro.where}) is called only in its own file: name it _{macro.name}"
        for macro in macros()
        if macro.is_public and macro.kind == "macro" and not callers_elsewhere(macro)
    ]
    assert not wrong, "\n".join(wrong)
