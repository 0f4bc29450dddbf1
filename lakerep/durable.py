"""The runner's durable steps outside Delta: the files it keeps under the lakerep home (session
locks, status records, the token file) and a PostgreSQL slot's confirmation, each taken through
durable_step(), so that one place sees every state a crash can leave behind.

Delta's commits are durable steps too; they happen in the JVM and are seen there (a log store).
An observer named by LAKEREP_DURABLE_OBSERVER (`module:function`, importable by the runner) is
called as function("before" | "after", what) around each step: the crash-point tests journal the
steps with it and kill the runner at one (tests/crashpoints). Unset, a step is only its work.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

OBSERVER_VARIABLE = "LAKEREP_DURABLE_OBSERVER"


@contextmanager
def durable_step(what: str) -> Iterator[None]:
    """The body is one durable step, `what` (a kind and the file or slot it changes)."""
    observer = _observer(os.environ.get(OBSERVER_VARIABLE))
    if observer is not None:
        observer("before", what)
    yield
    if observer is not None:
        observer("after", what)


@cache
def _observer(name: str | None) -> Callable[[str, str], None] | None:
    if not name:
        return None
    module, _, function = name.partition(":")
    if not module or not function:
        raise ValueError(f"{OBSERVER_VARIABLE} must name module:function, not {name!r}")
    return getattr(importlib.import_module(module), function)
