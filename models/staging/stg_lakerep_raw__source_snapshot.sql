{#-
    The landed unloads of source tables (SPEC §2.5), as landed: one row per source row, with the
    log positions at which the unload started and ended. Validation judges each landing of an
    unload once (int_snapshot_rows_judged).
-#}

select
    snapshot_id,
    source_owner,
    source_table,
    unload_start_position,
    unload_end_position,
    row_image,
    landing_batch,
    landed_at
from {{ source('lakerep_raw', 'source_snapshot') }}
