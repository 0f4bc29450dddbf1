"""The CD rows a change of the oracle makes (SPEC §3), stated apart from the SQL that writes them
(lakerep_cd_model): the scenario checks' oracle must not reuse it."""

from __future__ import annotations


def before_image_columns(registration) -> list[str]:
    prefix = registration.before_image_prefix
    return [] if prefix is None else [prefix + column for column in registration.column_names]


def cd_rows_of(change, registration) -> list[tuple[str, tuple]]:
    """The CD rows a change makes (SPEC §3), as (IBMSNAP_OPERATION, user values then before-image
    values): the row after it (for a delete, the row deleted) and the row before it. A key update
    of a table registered with key_updates_as_delete_insert is a delete of the old key and an
    insert of the new one."""
    columns = registration.column_names
    images = registration.before_image_prefix is not None

    def row(operation: str, user: dict | None, prior: dict | None) -> tuple[str, tuple]:
        before = tuple(None if prior is None else prior[c] for c in columns) if images else ()
        return operation, tuple(user[c] for c in columns) + before

    if change.operation == "I":
        return [row("I", change.after, None)]
    if change.operation == "D":
        return [row("D", change.before, change.before)]
    if registration.key_updates_as_delete_insert and change.before_key != change.key:
        return [row("D", change.before, change.before), row("I", change.after, None)]
    return [row("U", change.after, change.before)]
