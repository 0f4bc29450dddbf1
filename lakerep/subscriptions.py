"""Subscriptions, read from the project's one declaration (subscriptions.yml, SPEC §2.4).

An Apply qualifier holds subscription sets; a set holds members, each a registered source
copied to one target table: all its columns, or those the member lists (the key among them).
`lakerep scaffold` turns the declaration into dbt models and a macro; the runner and the tests
read it here. Target names become dbt models, file names and SQL, so `load_members` refuses
anything but a name, a key it does not know, and a target whose model would take the name of
another model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lakerep import PROJECT_DIR
from lakerep.registrations import (
    CCD_DIR,
    CD_DIR,
    MAX_NAME_LENGTH,
    Column,
    Registration,
    ccd_model_name,
    cd_model_name,
    load_registrations,
    read_declaration,
)
from lakerep.registrations import DECLARATION_PATH as REGISTRATIONS_PATH

DECLARATION_PATH = Path("subscriptions.yml")
DECLARATION_FILE = PROJECT_DIR / DECLARATION_PATH
TARGETS_DIR = Path("models/apply/targets")
MODELS_DIR = Path("models")
STRUCTURES = ("user_copy", "point_in_time", "ccd")
# IBMSNAP_PRUNCNTL.TARGET_STRUCTURE codes of the seeds.
STRUCTURE_CODES = {"ccd": 3, "point_in_time": 4, "user_copy": 8}
ERROR_POLICIES = ("stop", "continue")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_NAME_RULE = f"letters, digits and underscores, starting with a letter, at most {MAX_NAME_LENGTH} characters"
_DOCUMENT_KEYS = ("apply_qualifiers",)
_QUALIFIER_KEYS = ("apply_qual", "sets")
_SET_KEYS = ("set_name", "on_operational_error", "members")
_MEMBER_KEYS = ("source", "target", "structure", "columns")


class SubscriptionError(ValueError):
    """The declaration is inconsistent; the message names the member and the problem."""


@dataclass(frozen=True)
class Member:
    apply_qual: str
    set_name: str
    on_operational_error: str
    registration: Registration
    target_table: str
    target_structure: str
    listed_columns: tuple[str, ...] | None = None  # None: every registered column

    @property
    def source(self) -> str:
        return self.registration.qualified_name

    @property
    def columns(self) -> tuple[Column, ...]:
        """The source's columns the target holds, in the registration's order."""
        listed = self.listed_columns
        return tuple(c for c in self.registration.columns if listed is None or c.name in listed)

    @property
    def keeps_history(self) -> bool:
        return self.target_structure == "ccd"


def load_members(path: Path = DECLARATION_FILE, *, project_dir: Path = PROJECT_DIR) -> list[Member]:
    """Every member in declaration order, its source registered and its target named apart from
    the models of `project_dir`; a SubscriptionError, one line naming the file, the set or member
    and the problem, for anything refused."""
    document = _mapping(read_declaration(path, SubscriptionError), _DOCUMENT_KEYS, f"{path}", "the document")
    registrations = load_registrations(project_dir / REGISTRATIONS_PATH)
    models = _models_of(project_dir, registrations)
    members: list[Member] = []
    sets: set[tuple[str, str]] = set()
    for number, qualifier in enumerate(_list(document, "apply_qualifiers", f"{path}"), start=1):
        qualifier = _mapping(qualifier, _QUALIFIER_KEYS, f"{path}", f"apply qualifier {number}")
        apply_qual = _name(qualifier.get("apply_qual"), "apply_qual", f"{path}: apply qualifier {number}")
        where = f"{path}: apply qualifier {apply_qual}"
        for set_number, subscription_set in enumerate(_list(qualifier, "sets", where), start=1):
            subscription_set = _mapping(subscription_set, _SET_KEYS, where, f"set {set_number}")
            set_name = _name(subscription_set.get("set_name"), "set_name", f"{where}: set {set_number}")
            if (apply_qual, set_name) in sets:
                raise SubscriptionError(f"{path}: set {apply_qual}.{set_name} is declared twice")
            sets.add((apply_qual, set_name))
            members += _set_members(subscription_set, apply_qual, set_name, registrations, models, path)
    return members


def _set_members(
    subscription_set: dict,
    apply_qual: str,
    set_name: str,
    registrations: dict[str, Registration],
    models: dict[str, str],
    path: Path,
) -> list[Member]:
    """The members of one set; each claims its target's and its change model's names in `models`."""
    where = f"{path}: set {apply_qual}.{set_name}"
    policy = subscription_set.get("on_operational_error", "stop")
    if policy not in ERROR_POLICIES:
        raise SubscriptionError(
            f"{where}: on_operational_error must be {' or '.join(ERROR_POLICIES)}, not {policy!r}"
        )
    members = []
    for number, entry in enumerate(_list(subscription_set, "members", where), start=1):
        entry = _mapping(entry, _MEMBER_KEYS, where, f"member {number}")
        target = _name(entry.get("target"), "target", f"{where}: member {number}")
        member = _member(entry, target, apply_qual, set_name, policy, registrations, where)
        _claim_models(member, models, where)
        members.append(member)
    return members


def _member(
    entry: dict,
    target: str,
    apply_qual: str,
    set_name: str,
    policy: str,
    registrations: dict[str, Registration],
    where: str,
) -> Member:
    source = entry.get("source")
    registration = registrations.get(source) if isinstance(source, str) else None
    if registration is None:
        raise SubscriptionError(f"{where}: source {source!r} is not a registered table")
    if target != target.lower():
        raise SubscriptionError(f"{where}: target {target} must be lower case (it names a dbt model)")
    structure = entry.get("structure")
    if structure not in STRUCTURES:
        raise SubscriptionError(f"{where}: {target}: structure must be one of {', '.join(STRUCTURES)}")
    moves_keys = registration.key_updates_as_delete_insert or registration.before_image_prefix is not None
    if structure != "ccd" and not moves_keys:
        raise SubscriptionError(
            f"{where}: {target}: a {structure} of {source} cannot follow key updates; register the "
            "table with key_updates_as_delete_insert: true or a before_image_prefix, or use structure ccd"
        )
    listed = _column_list(entry.get("columns"), registration, f"{where}: {target}")
    return Member(apply_qual, set_name, policy, registration, target, structure, listed)


def _column_list(value: object, registration: Registration, where: str) -> tuple[str, ...] | None:
    """A member's `columns`: None when it has none (every column), else the names, each a
    registered column of the source, none twice, the key's among them (Apply finds rows by it)."""
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(name, str) for name in value):
        raise SubscriptionError(f"{where}: columns must be a list of column names, not {value!r}")
    names = registration.column_names
    for number, name in enumerate(value):
        if name not in names:
            raise SubscriptionError(
                f"{where}: columns: {name!r} is not a column of {registration.qualified_name} "
                f"(its columns: {', '.join(names)})"
            )
        if name in value[:number]:
            raise SubscriptionError(f"{where}: columns: {name!r} is listed twice")
    missing = [key for key in registration.key_columns if key not in value]
    if missing:
        raise SubscriptionError(
            f"{where}: columns must include the key of {registration.qualified_name}, which finds "
            f"each row in the target: {', '.join(missing)} is missing"
        )
    return tuple(value)


def _models_of(project_dir: Path, registrations: dict[str, Registration]) -> dict[str, str]:
    """The project's model names a target must not take, each with what it is: the hand-written
    models and the registered tables' CD and CCD views (the generated targets are those of this
    declaration, claimed member by member)."""
    generated = [project_dir / folder for folder in (CD_DIR, CCD_DIR, TARGETS_DIR)]
    models = {
        path.stem: f"the model {path.relative_to(project_dir)}"
        for path in sorted((project_dir / MODELS_DIR).rglob("*"))
        if path.suffix in (".sql", ".py") and not any(path.is_relative_to(folder) for folder in generated)
    }
    for registration in registrations.values():
        models[cd_model_name(registration)] = f"the CD view of {registration.qualified_name}"
        models[ccd_model_name(registration)] = f"the CCD view of {registration.qualified_name}"
    return models


def _claim_models(member: Member, models: dict[str, str], where: str) -> None:
    """Record the member's target in `models`, refusing a name already taken."""
    target = member.target_table
    as_target = f"target {target}"
    if models.get(target) == as_target:
        raise SubscriptionError(f"{where}: target {target} is declared twice")
    if target in models:
        raise SubscriptionError(f"{where}: target {target} collides with {models[target]}")
    models[target] = as_target


def _name(value: object, field: str, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_NAME_LENGTH or not _NAME.fullmatch(value):
        raise SubscriptionError(f"{where}: {field} {value!r} is not a name ({_NAME_RULE})")
    return value


def _mapping(value: object, known: tuple[str, ...], where: str, what: str) -> dict:
    """`value` as a mapping of only the `known` keys."""
    if not isinstance(value, dict):
        raise SubscriptionError(f"{where}: {what} must be a mapping ({', '.join(known)}), not {value!r}")
    unknown = next((key for key in value if key not in known), None)
    if unknown is not None:
        raise SubscriptionError(f"{where}: {what}: unknown key {unknown!r} (known: {', '.join(known)})")
    return value


def _list(mapping: dict, key: str, where: str) -> list:
    value = mapping.get(key)
    if not isinstance(value, list):
        raise SubscriptionError(f"{where}: {key} must be a list, not {value!r}")
    return value
