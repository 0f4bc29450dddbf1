{#-
    SQL of the landed log records above landing batch `after_batch`, canonical and Debezium's
    (once `lakerep land` has made their table, ADR 0009: a transaction enters the log when it
    is whole), with mapping_reason (why a Debezium event cannot be mapped, else null).
    Arguments: after_batch — the highest landing batch already judged (-1 for none); up_to_batch
    — the highest to read (none: every batch landed).
-#}
{% macro lakerep_new_log_records(after_batch, up_to_batch=none) %}
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
        landed_at,
        cast(null as string) as mapping_reason
    from {{ ref('stg_lakerep_raw__source_log') }}
    where landing_batch > {{ after_batch }}
    {%- if up_to_batch is not none %} and landing_batch <= {{ up_to_batch }}{% endif %}
    {%- if lakerep_debezium_events_relation() is not none %}
        union all
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
            landed_at,
            mapping_reason
        from {{ ref('stg_lakerep_raw__debezium_log') }}
        where not awaiting_commit and landing_batch > {{ after_batch }}
    {%- if up_to_batch is not none %} and landing_batch <= {{ up_to_batch }}{% endif %}
    {%- endif %}
{% endmacro %}
