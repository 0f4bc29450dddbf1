"""Registered source tables, read from the project's one declaration.

The declaration is the dbt sources file models/staging/_registrations__sources.yml; dbt reads
the same file through its graph. Python needs it for the workload generator, for checks that
the dbt models agree with it, and for `lakerep scaffold`, which turns it into the generated
stubs, contracts and macros. The macros put owners, tables, columns, prefixes and types into
SQL as they are, so `load_registrations` is the one place where they are validated: every name
is an identifier, every type one Spark casts to, every flag a YAML boolean, and no two tables'
models or one table's columns share a name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from lakerep import PROJECT_DIR

DECLARATION_PATH = Path("models/staging/_registrations__sources.yml")
DECLARATION_FILE = PROJECT_DIR / DECLARATION_PATH
CD_DIR = Path("models/capture/cd")
CCD_DIR = Path("models/capture/ccd")

MAX_NAME_LENGTH = 128
_NAME_RULE = (
    "letters, digits and underscores, starting with a letter or underscore, "
    f"at most {MAX_NAME_LENGTH} characters"
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIMPLE_TYPES = (
    "string", "tinyint", "smallint", "int", "integer", "bigint", "float", "double", "boolean", "date",
    "timestamp",
)  # fmt: skip
_DECIMAL_TYPE = re.compile(r"decimal\( *([0-9]+) *, *([0-9]+) *\)", re.IGNORECASE)
MAX_DECIMAL_PRECISION = 38
_TYPE_RULE = (
    f"one of {', '.join(_SIMPLE_TYPES)}, "
    f"or decimal(p,s) with 1 <= p <= {MAX_DECIMAL_PRECISION} and 0 <= s <= p"
)
# Column names the generated models use beside the registered columns (lower case): those of
# their contracts (lakerep/scaffold.py) and those the macros add to rows that also hold the
# registered columns (lakerep_member_changes, the target's lakerep_deletes_key). A registered
# column of that name would be ambiguous in their SQL.
RESERVED_COLUMN_PREFIX = "ibmsnap_"
RESERVED_COLUMNS = frozenset(
    {
        "landing_batch", "apply_cycle", "row_action", "first_operation", "change_count", "reworked",
        "operational_error", "first_change", "change_rank", "copy_rank", "change_order", "first_commitseq",
        "existed", "conflicts", "mitigated", "lakerep_deletes_key",
    }
)  # fmt: skip
_RESERVED_TEXT = ", ".join(["IBMSNAP_*", *sorted(RESERVED_COLUMNS)])
_REQUIRED_KEYS = ("source_owner", "source_table", "key_columns")
_FLAG_DEFAULTS = {
    "key_updates_as_delete_insert": False,
    "ccd_condensed": True,
    "ccd_complete": False,
    "disable_refresh": False,
}
_KNOWN_KEYS = (*_REQUIRED_KEYS, "before_image_prefix", *_FLAG_DEFAULTS)


@dataclass(frozen=True)
class Column:
    name: str
    data_type: str


@dataclass(frozen=True)
class Registration:
    source_owner: str
    source_table: str
    columns: tuple[Column, ...]
    key_columns: tuple[str, ...]
    before_image_prefix: str | None
    key_updates_as_delete_insert: bool
    ccd_condensed: bool
    ccd_complete: bool
    disable_refresh: bool

    @property
    def qualified_name(self) -> str:
        return f"{self.source_owner}.{self.source_table}"

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns)


class RegistrationError(ValueError):
    """The declaration is inconsistent; the message names the table and the problem."""


class _DeclarationLoader(yaml.SafeLoader):
    """Safe YAML that refuses a key written twice in one mapping (plain YAML keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                if (key_node.tag, key_node.value) in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {key_node.value!r} is written twice", key_node.start_mark
                    )
                seen.add((key_node.tag, key_node.value))
        return super().construct_mapping(node, deep=deep)


def read_declaration(path: Path, error: type[ValueError]) -> object:
    """The YAML document of a declaration file; `error`, one line naming the file, when the file
    cannot be read, is not YAML (or writes a key twice) or holds nothing."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as failure:
        raise error(f"{path}: cannot be read: {failure.strerror}") from failure
    try:
        document = yaml.load(text, Loader=_DeclarationLoader)
    except yaml.MarkedYAMLError as failure:
        mark = failure.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise error(f"{path}: not valid YAML: {failure.problem}{where}") from failure
    except yaml.YAMLError as failure:
        raise error(f"{path}: not valid YAML: {' '.join(str(failure).split())}") from failure
    if document is None:
        raise error(f"{path}: is empty")
    return document


def cd_model_name(registration: Registration) -> str:
    return f"cd_{registration.source_owner.lower()}__{registration.source_table.lower()}"


def ccd_model_name(registration: Registration) -> str:
    return f"ccd_{registration.source_owner.lower()}__{registration.source_table.lower()}"


def before_image_columns(registration: Registration) -> list[tuple[str, str]]:
    prefix = registration.before_image_prefix
    if prefix is None:
        return []
    return [(f"{prefix}{column.name}", column.data_type) for column in registration.columns]


def load_registrations(path: Path = DECLARATION_FILE) -> dict[str, Registration]:
    """All registrations keyed by OWNER.TABLE, in declaration order; a RegistrationError, one
    line naming the file, the table and the problem, for anything the validator refuses."""
    document = read_declaration(path, RegistrationError)
    if not isinstance(document, dict):
        raise RegistrationError(
            f"{path}: the document must be a mapping with a sources list, not {document!r}"
        )
    registrations: dict[str, Registration] = {}
    for number, source in enumerate(_list(document.get("sources"), "sources", f"{path}"), start=1):
        source = _mapping(source, f"source {number}", f"{path}")
        where = f"{path}: source {_label(source.get('name'))}"
        if not _flag(_meta(source, where), "lakerep_registered", False, where):
            continue
        for table_number, table in enumerate(_list(source.get("tables"), "tables", where), start=1):
            registration = _registration_from(_mapping(table, f"table {table_number}", where), path)
            if registration.qualified_name in registrations:
                raise RegistrationError(f"{path}: {registration.qualified_name} is registered twice")
            registrations[registration.qualified_name] = registration
    _check_model_names(registrations, path)
    return registrations


def _registration_from(table: dict, path: Path) -> Registration:
    where = f"{path}: table {_label(table.get('name'))}"
    meta = _meta(table, where).get("lakerep")
    if meta is None:
        raise RegistrationError(f"{where} has no meta.lakerep block")
    meta = _mapping(meta, "meta.lakerep", where)
    unknown = next((key for key in meta if key not in _KNOWN_KEYS), None)
    if unknown is not None:
        raise RegistrationError(
            f"{where}: meta.lakerep: unknown key {unknown!r} (known: {', '.join(_KNOWN_KEYS)})"
        )
    owner = _name(_required(meta, "source_owner", where), "source_owner", where)
    source_table = _name(_required(meta, "source_table", where), "source_table", where)
    where = f"{path}: {owner}.{source_table}"
    columns = _columns(table.get("columns"), where)
    prefix = meta.get("before_image_prefix")
    registration = Registration(
        source_owner=owner,
        source_table=source_table,
        columns=columns,
        key_columns=_key_columns(_required(meta, "key_columns", where), columns, where),
        before_image_prefix=None if prefix is None else _name(prefix, "before_image_prefix", where),
        **{flag: _flag(meta, flag, default, where) for flag, default in _FLAG_DEFAULTS.items()},
    )
    _check_column_names(registration, where)
    return registration


def _columns(declared: object, where: str) -> tuple[Column, ...]:
    if not isinstance(declared, list) or not declared:
        raise RegistrationError(
            f"{where}: columns must be a non-empty list of mappings with name and data_type, not {declared!r}"
        )
    columns = []
    for number, column in enumerate(declared, start=1):
        if not isinstance(column, dict):
            raise RegistrationError(
                f"{where}: column {number} must be a mapping with name and data_type, not {column!r}"
            )
        if "name" not in column:
            raise RegistrationError(f"{where}: column {number} has no name")
        name = _name(column["name"], "column name", where)
        if "data_type" not in column:
            raise RegistrationError(f"{where}: column {name} has no data_type")
        columns.append(Column(name, _data_type(column["data_type"], f"{where}: column {name}")))
    return tuple(columns)


def _data_type(value: object, where: str) -> str:
    """A type Spark casts to, spelt so that it is safe in `cast(... as <type>)`."""
    if isinstance(value, str) and value.isascii() and (value.lower() in _SIMPLE_TYPES or _is_decimal(value)):
        return value
    raise RegistrationError(f"{where}: data_type {value!r} is not a supported type ({_TYPE_RULE})")


def decimal_scale(data_type: str) -> int | None:
    """The scale of a registered decimal(p,s) type; None for any other type."""
    decimal = _DECIMAL_TYPE.fullmatch(data_type)
    return None if decimal is None else int(decimal.group(2))


def _is_decimal(data_type: str) -> bool:
    decimal = _DECIMAL_TYPE.fullmatch(data_type)
    if decimal is None:
        return False
    precision, scale = int(decimal.group(1)), int(decimal.group(2))
    return 1 <= precision <= MAX_DECIMAL_PRECISION and scale <= precision


def _key_columns(keys: object, columns: tuple[Column, ...], where: str) -> tuple[str, ...]:
    if not isinstance(keys, list) or not keys:
        raise RegistrationError(
            f"{where}: key_columns must be a non-empty list of column names, not {keys!r}"
        )
    for key in keys:
        _name(key, "key column", where)
    declared = {column.name for column in columns}
    missing = [key for key in keys if key not in declared]
    if missing:
        raise RegistrationError(f"{where}: key columns {missing} are not declared columns")
    twice = next((key for number, key in enumerate(keys) if key in keys[:number]), None)
    if twice is not None:
        raise RegistrationError(f"{where}: key column {twice} is listed twice")
    return tuple(keys)


def _check_column_names(registration: Registration, where: str) -> None:
    """The columns of the table's models, its own and its before images, are names and differ
    from each other and from the columns the generated models add, ignoring case (as Spark)."""
    columns = [(column.name, f"column {column.name}") for column in registration.columns]
    for name, _ in before_image_columns(registration):
        columns.append((_name(name, "before-image column name", where), f"before-image column {name}"))
    seen: dict[str, str] = {}
    for name, role in columns:
        folded = name.lower()
        if folded in RESERVED_COLUMNS or folded.startswith(RESERVED_COLUMN_PREFIX):
            raise RegistrationError(f"{where}: {role} is a name the generated models use ({_RESERVED_TEXT})")
        if folded in seen:
            raise RegistrationError(
                f"{where}: {role} has the name of {seen[folded]} (column names ignore case)"
            )
        seen[folded] = role


def _check_model_names(registrations: dict[str, Registration], path: Path) -> None:
    """Each table's CD and CCD model names are names, and no two tables make the same model."""
    made_by: dict[str, str] = {}
    for registration in registrations.values():
        where = f"{path}: {registration.qualified_name}"
        for kind, model in (("CD", cd_model_name(registration)), ("CCD", ccd_model_name(registration))):
            _name(model, f"{kind} model name", where)
            if model in made_by:
                raise RegistrationError(
                    f"{path}: {made_by[model]} and {registration.qualified_name} both make the model "
                    f"{model} (cd_<owner>__<table>)"
                )
            made_by[model] = registration.qualified_name


def _name(value: object, what: str, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_NAME_LENGTH or not _NAME.fullmatch(value):
        raise RegistrationError(f"{where}: {what} {value!r} is not a name ({_NAME_RULE})")
    return value


def _flag(mapping: dict, key: str, default: bool, where: str) -> bool:
    value = mapping.get(key, default)
    if not isinstance(value, bool):
        raise RegistrationError(f"{where}: {key} must be true or false, not {value!r}")
    return value


def _required(mapping: dict, key: str, where: str) -> object:
    if key not in mapping:
        raise RegistrationError(f"{where}: meta.lakerep has no {key}")
    return mapping[key]


def _meta(entry: dict, where: str) -> dict:
    """The config.meta block of a source or table (empty when absent)."""
    config = _mapping(entry.get("config", {}), "config", where)
    return _mapping(config.get("meta", {}), "config.meta", where)


def _mapping(value: object, what: str, where: str) -> dict:
    if not isinstance(value, dict):
        raise RegistrationError(f"{where}: {what} must be a mapping, not {value!r}")
    return value


def _list(value: object, what: str, where: str) -> list:
    if not isinstance(value, list):
        raise RegistrationError(f"{where}: {what} must be a list, not {value!r}")
    return value


def _label(name: object) -> str:
    """A dbt table or source name as the message shows it: as written when it is one printable
    line, else quoted."""
    return name if isinstance(name, str) and name.isprintable() else repr(name)
