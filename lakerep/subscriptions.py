"""Subscriptions, read from the project's one declaration (subscriptions.yml, SPEC §2.4).

An Apply qualifier holds subscription sets; a set holds members, each a registered source
copied to one target table. `lakerep scaffold` turns the declaration into dbt models and a macro;
the runner and the tests read it here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from lakerep import PROJECT_DIR
from lakerep.registrations import Registration, load_registrations

DECLARATION_FILE = PROJECT_DIR / "subscriptions.yml"
STRUCTURES = ("user_copy", "point_in_time", "ccd")
# IBMSNAP_PRUNCNTL.TARGET_STRUCTURE codes of the seeds.
STRUCTURE_CODES = {"ccd": 3, "point_in_time": 4, "user_copy": 8}
ERROR_POLICIES = ("stop", "continue")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


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

    @property
    def source(self) -> str:
        return self.registration.qualified_name

    @property
    def changes_model(self) -> str:
        return f"apply_changes__{self.target_table}"

    @property
    def keeps_history(self) -> bool:
        return self.target_structure == "ccd"


def load_members(path: Path = DECLARATION_FILE) -> list[Member]:
    """Every member in declaration order; a SubscriptionError names what is wrong."""
    document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    registrations = load_registrations()
    members: list[Member] = []
    targets: set[str] = set()
    sets: set[tuple[str, str]] = set()
    for qualifier in document.get("apply_qualifiers") or []:
        apply_qual = _name(qualifier, "apply_qual", path)
        for subscription_set in qualifier.get("sets") or []:
            set_name = _name(subscription_set, "set_name", path)
            if (apply_qual, set_name) in sets:
                raise SubscriptionError(f"{path}: set {apply_qual}.{set_name} is declared twice")
            sets.add((apply_qual, set_name))
            policy = subscription_set.get("on_operational_error", "stop")
            if policy not in ERROR_POLICIES:
                raise SubscriptionError(
                    f"{path}: set {apply_qual}.{set_name}: on_operational_error must be "
                    f"{' or '.join(ERROR_POLICIES)}, not {policy!r}"
                )
            for entry in subscription_set.get("members") or []:
                member = _member(entry, apply_qual, set_name, policy, registrations, path)
                if member.target_table in targets:
                    raise SubscriptionError(f"{path}: target {member.target_table} is declared twice")
                targets.add(member.target_table)
                members.append(member)
    return members


def _name(entry: dict, field: str, path: Path) -> str:
    value = entry.get(field)
    if not isinstance(value, str) or not _NAME.match(value):
        raise SubscriptionError(f"{path}: {field} {value!r} is not a name (letters, digits, underscores)")
    return value


def _member(
    entry: dict,
    apply_qual: str,
    set_name: str,
    policy: str,
    registrations: dict[str, Registration],
    path: Path,
) -> Member:
    where = f"{path}: set {apply_qual}.{set_name}"
    source = entry.get("source")
    registration = registrations.get(source)
    if registration is None:
        raise SubscriptionError(f"{where}: source {source!r} is not a registered table")
    target = _name(entry, "target", path)
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
    return Member(apply_qual, set_name, policy, registration, target, structure)
