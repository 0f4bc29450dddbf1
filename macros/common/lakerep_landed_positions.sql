{#-
    SQL of the log positions the lake has landed (position, normalized, well-formed only): of every
    landed record, valid or not, and of every valid record judged. A prune keeps the judged log's
    oldest record and its newest batch (lakerep_prune_plan), so it moves neither the log's oldest
    position nor its end.
    Arguments: landed_log — the landed log records (source_log, or its staging view); judged —
    int_log_records_judged, or none before it is built.
-#}
{% macro lakerep_landed_positions(landed_log, judged) %}
    select position
    from (
        select {{ lakerep_normalize_position('log_position') }} as position from {{ landed_log }}
        {%- if judged is not none %}
            union all
            select normalized_position from {{ judged }} where quarantine_reason is null
        {%- endif %}
    )
    where {{ lakerep_is_position('position') }}
{% endmacro %}
