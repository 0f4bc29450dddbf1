"""The physical plans this JVM's Spark ran, and the joins in them that pair every row of one side
with every row of the other.

Spark's SQL status store keeps every query execution of the session with its plan in the
formatted explain mode, Delta's own queries inside a MERGE or a write included, whether or not
the UI is on. A BroadcastNestedLoopJoin or a CartesianProduct costs the product of its sides'
rows: harmless when one side is one row (a cross join with a one-row aggregate, a literal row),
quadratic otherwise, and invisible at a test's size until a production table makes it take hours.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from lakerep import dbt

NESTED_LOOP_JOINS = ("BroadcastNestedLoopJoin", "CartesianProduct")
AGGREGATES = ("HashAggregate", "SortAggregate", "ObjectHashAggregate")
# Operators whose output has at most as many rows as their one child.
ROW_PRESERVING = (
    "Project",
    "Filter",
    "BroadcastExchange",
    "Exchange",
    "ColumnarToRow",
    "Sort",
    "Window",
    "WholeStageCodegen",
    "InputAdapter",
    "LocalLimit",
    "GlobalLimit",
    "CollectLimit",
    "TakeOrderedAndProject",
)

TREE_LINE = re.compile(r"^(?P<indent>[ :+\-*]*)(?P<name>[A-Za-z][^()]*?) \((?P<id>\d+)\)$")
DETAIL_HEADER = re.compile(r"^\((?P<id>\d+)\) (?P<header>.*)$")
REUSES = re.compile(r"\[Reuses operator id: (?P<id>\d+)\]")


@dataclass
class Operator:
    id: int
    name: str
    children: list[int] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    reuses: int | None = None


@dataclass(frozen=True)
class Execution:
    id: int
    description: str
    plan: str
    node: str = ""  # the dbt node that ran it, when recorded_executions knows


def last_execution_id(spark) -> int:
    """The id of the newest query execution this JVM has run (-1 for none)."""
    executions = spark._jsparkSession.sharedState().statusStore().executionsList()
    return max((executions.apply(i).executionId() for i in range(executions.size())), default=-1)


def executions_since(spark, execution_id: int) -> list[Execution]:
    """Every query execution after `execution_id`, oldest first. Raises when the store has
    already let one of them go (it keeps spark.sql.ui.retainedExecutions)."""
    executions = spark._jsparkSession.sharedState().statusStore().executionsList()
    found = []
    # Newest last: read back from the end, so a drain after each dbt node reads only what is new.
    for i in reversed(range(executions.size())):
        execution = executions.apply(i)
        if execution.executionId() <= execution_id:
            break
        plan = execution.physicalPlanDescription()
        found.append(Execution(execution.executionId(), execution.description(), plan))
    found.sort(key=lambda execution: execution.id)
    if found and found[0].id != execution_id + 1:
        missing = f"{execution_id + 1}..{found[0].id - 1}"
        raise RuntimeError(f"the status store no longer holds executions {missing}")
    return found


@contextmanager
def recorded_executions(spark) -> Iterator[list[Execution]]:
    """The executions run inside, read from the store after each dbt node and at the end: the
    store keeps only the newest spark.sql.ui.retainedExecutions (1,000), fewer than a cycle and
    its data tests run."""
    recorded: list[Execution] = []
    last = [last_execution_id(spark)]

    def drain(event=None) -> None:
        if event is None or event.info.name == "NodeFinished":
            node = event.data.node_info.unique_id if event is not None else ""
            recorded.extend(replace(e, node=node) for e in executions_since(spark, last[0]))
            last[0] = recorded[-1].id if recorded else last[0]

    dbt.EVENT_CALLBACKS.append(drain)
    try:
        yield recorded
    finally:
        dbt.EVENT_CALLBACKS.remove(drain)
        drain()


def nested_loop_joins(plan: str) -> list[str]:
    """Each BroadcastNestedLoopJoin or CartesianProduct of a formatted plan (main query and
    subqueries) neither of whose sides is one row, as its operator line with its join type."""
    operators = _operators(plan)

    def one_row(operator_id: int) -> bool:
        operator = operators[operator_id]
        if operator.reuses is not None and operator.reuses in operators:
            return one_row(operator.reuses)
        if operator.name.startswith("Scan OneRowRelation"):
            return True
        if operator.name.startswith(AGGREGATES):
            return any(re.fullmatch(r"Keys(?: \[0\])?: \[\]", detail) for detail in operator.details)
        if operator.name.startswith(NESTED_LOOP_JOINS):
            return all(one_row(child) for child in operator.children)
        if operator.name.startswith(ROW_PRESERVING) and len(operator.children) == 1:
            return one_row(operator.children[0])
        return False

    return [
        f"({operator.id}) {operator.name}, {', '.join(d for d in operator.details if d.startswith('Join'))}"
        for operator in operators.values()
        if operator.name.startswith(NESTED_LOOP_JOINS)
        and not any(one_row(child) for child in operator.children)
    ]


def _operators(plan: str) -> dict[int, Operator]:
    """The operators of a formatted plan by id, with their children (from the tree lines) and
    their detail lines (from the numbered blocks below the trees)."""
    operators: dict[int, Operator] = {}
    parents: list[tuple[int, int]] = []  # (indent, id) of the open ancestors of the next tree line
    detail_of: Operator | None = None
    for line in plan.splitlines():
        header = DETAIL_HEADER.match(line)
        if header and int(header["id"]) in operators:
            detail_of = operators[int(header["id"])]
            reuses = REUSES.search(header["header"])
            detail_of.reuses = int(reuses["id"]) if reuses else None
            continue
        if detail_of is not None:
            if line.strip():
                detail_of.details.append(line.strip())
                continue
            detail_of = None
        tree = TREE_LINE.match(line)
        if not tree:
            parents = []
            continue
        indent, operator_id = len(tree["indent"]), int(tree["id"])
        operators.setdefault(operator_id, Operator(operator_id, tree["name"].strip()))
        while parents and parents[-1][0] >= indent:
            parents.pop()
        if parents:
            operators[parents[-1][1]].children.append(operator_id)
        parents.append((indent, operator_id))
    return operators
