{#-
    SQL of the landed unload rows above landing batch `after_batch`, landed ones and Debezium's
    snapshot reads (once `lakerep land` has made their table, ADR 0009), with mapping_reason.
    Arguments: after_batch — the highest landing batch already judged (-1 for none); up_to_batch
    — the highest to read (none: every batch landed).
-#}
{% macro lakerep_new_snapshot_rows(after_batch, up_to_batch=none) %}
    select
        snapshot_id,
        source_owner,
        source_table,
        unload_start_position,
        unload_end_position,
        row_image,
        landing_batch,
        landed_at,
        cast(null as string) as mapping_reason
    from {{ ref('stg_lakerep_raw__source_snapshot') }}
    where landing_batch > {{ after_batch }}
    {%- if up_to_batch is not none %} and landing_batch <= {{ up_to_batch }}{% endif %}
    {%- if lakerep_debezium_events_relation() is not none %}
        union all
        select
            snapshot_id,
            source_owner,
            source_table,
            unload_start_position,
            unload_end_position,
            row_image,
            landing_batch,
            landed_at,
            mapping_reason
        from {{ ref('stg_lakerep_raw__debezium_snapshot') }}
        where landing_batch > {{ after_batch }}
    {%- if up_to_batch is not none %} and landing_batch <= {{ up_to_batch }}{% endif %}
    {%- endif %}
{% endmacro %}
