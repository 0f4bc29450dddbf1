{#-
    The landed source log (SPEC §2.1), as landed: every column text, so that a malformed record
    still lands and validation can quarantine it with a reason. Validation reads the landing
    batches it has not judged through this view (int_log_records_judged); a filter on
    landing_batch reaches the landing table's file statistics.
-#}

select
    log_position,
    uow_id,
    record_type,
    source_owner,
    source_table,
    log_timestamp,
    auth_id,
    auth_token,
    before_image,
    after_image,
    landing_batch,
    landed_at
from {{ source('lakerep_raw', 'source_log') }}
