"""The runner's small records under the lakerep home (status/: a session's last cycle, when the
data tests last passed), each replaced in one step."""

from __future__ import annotations

import os
from pathlib import Path

from lakerep.durable import durable_step


def replace_in_one_step(path: Path, text: str) -> None:
    """Write `text` as the file at `path`, aside first and then renamed over it, so a reader
    never sees half of it (its folder made when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    with durable_step(f"file-write {path}"):
        temporary.replace(path)
