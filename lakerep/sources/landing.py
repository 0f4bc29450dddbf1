"""A source the runner reads itself (issue 23), as DB2 Capture reads its log: at the start of
every cycle, what the source holds past its confirmed position lands as one landing batch, and
only then is the position confirmed.

A crash between landing and confirming reads the same transactions again; they are left out by
their commit positions (not_landed), so landing them adds nothing. A lake with such a source
holds that source's log only: positions of two databases cannot be ordered against each other.
"""

from __future__ import annotations

import itertools

from lakerep import landing
from lakerep.sources.postgresql import PostgresqlSource, not_landed


def land_new_changes(spark, source: PostgresqlSource, max_changes: int | None = None) -> int:
    """Land the source's changes past its confirmed position (whole transactions), then confirm;
    the number of records landed. The records stream from the slot into the landing batch,
    never all in memory."""
    count = 0
    with source.stream(max_changes) as stream:
        records = stream.records
        first = next(records, None)  # None: nothing committed since, and the lake is not asked
        if first is not None:  # commit order: the first record has the lowest commit
            highest = highest_landed_commit(spark, at_or_above=first["uow_id"])
            new = not_landed(itertools.chain([first], records), highest)
            first_new = next(new, None)  # None: a read after a crash, every record landed already
            if first_new is not None:
                count = landing.land_log_records(spark, itertools.chain([first_new], new))[1]
    # The slot is free once the read's block has ended; with nothing landed it still moves on,
    # past transactions of tables not registered.
    source.confirm(stream.confirm_lsn)
    return count


def highest_landed_commit(spark, at_or_above: str) -> str | None:
    """The highest commit position landed at or above a position (well-formed positions only: a
    malformed one landed by mistake must not hide the source's records). Bounded below, the scan
    reads only the landing files whose positions reach that far (Delta's file statistics), not
    the whole history in every cycle; a landed commit below the read's lowest one cannot hide a
    record of it."""
    return spark.sql(
        f"select max(upper(log_position)) from {landing.SOURCE_LOG_TABLE} "
        f"where record_type = 'C' and log_position >= '{at_or_above}' "
        "and length(log_position) = 20 and log_position rlike '^[0-9A-Fa-f]+$'"
    ).collect()[0][0]
