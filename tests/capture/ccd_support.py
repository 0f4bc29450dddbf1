"""Reading CCDs back, and what the oracle says they should hold (shared by the capture tests)."""

from __future__ import annotations

from lakerep.scaffold import ccd_model_name
from lakerep.summary import relation_name


def global_synchpoint(spark) -> str:
    rows = spark.sql(
        f"select SYNCHPOINT from {relation_name('register')} where GLOBAL_RECORD = 'Y'"
    ).collect()
    assert len(rows) == 1
    return rows[0][0]


def user_values(row, registration) -> dict:
    return {column: row[column] for column in registration.column_names}


def expected_ccd_history(oracle, registration, up_to: str, after: str | None = None) -> list[tuple]:
    """The oracle's committed change history as CCD rows, key updates split as registered."""
    expected = []
    for change in oracle.history(registration.qualified_name, after=after, up_to=up_to):
        head = (change.commit_position, change.log_position)
        if (
            change.operation == "U"
            and registration.key_updates_as_delete_insert
            and change.key != change.before_key
        ):
            expected.append((*head, "D", change.before))
            expected.append((*head, "I", change.after))
        elif change.operation == "D":
            expected.append((*head, "D", change.before))
        else:
            expected.append((*head, change.operation, change.after))
    return sorted(expected, key=lambda row: row[:3])


def actual_ccd_history(spark, registration, table: str | None = None) -> list[tuple]:
    """The CCD's rows as history tuples; `table` reads another lake's CCD (delta.`path`)."""
    rows = spark.sql(
        f"select * from {table or relation_name(ccd_model_name(registration))} "
        "order by IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION"
    ).collect()
    return [
        (
            row["IBMSNAP_COMMITSEQ"],
            row["IBMSNAP_INTENTSEQ"],
            row["IBMSNAP_OPERATION"],
            user_values(row, registration),
        )
        for row in rows
    ]


def actual_condensed_state(spark, registration, table: str | None = None) -> dict:
    rows = spark.sql(
        f"select * from {table or relation_name(ccd_model_name(registration))} where IBMSNAP_OPERATION != 'D'"
    ).collect()
    return {
        tuple(row[key] for key in registration.key_columns): user_values(row, registration) for row in rows
    }
