"""The kinds of run whose durable steps are crash points (issue 64), by the name the crash points'
processes take. Each kind has:

    description          what the run is, for the notes of the checks
    chained              whether a point's run may follow the restart and checks of the point
                         before it in one process (next_run.py): not when the run changes what
                         the metastore records
    base()               makes the lake (and whatever it reads) a run of the kind starts from
    arguments(home)      the `lakerep` command under test, on the lake in `home`
    before_run()         restores what the kind keeps outside the lake to the base's (a server)
    restart_and_check(where)
                         after a kill at `where`: the operator's restart, then the checks against
                         the oracle, a line each (an assertion fails at the first that fails)
"""

from __future__ import annotations

from crashpoints.land_kind import LandKind
from crashpoints.postgresql_kind import PostgresqlKind
from crashpoints.scenario_kinds import SCENARIO_KINDS

KINDS = {
    **SCENARIO_KINDS,
    "land": LandKind("lakerep land: a file of Debezium change events landed as one batch"),
    "new-lake": LandKind("lakerep land as a new lake's first command (its tables made)", new_lake=True),
    "postgresql": PostgresqlKind("a cycle of a session reading a PostgreSQL source (landing, then the slot)"),
    "schema-evolution": PostgresqlKind(
        "a cycle of a PostgreSQL session in which a column is added and another widened", evolving=True
    ),
}
