{#-
    SQL of the UOWs (uow_id, distinct) whose end, a commit or a rollback, validation judged at or
    below a position: a prune of the landed log deletes their landed records (lakerep_prune_plan),
    and validation's data test leaves them out of its counts.
    Arguments: position — SQL of the position (a literal, or a scalar subquery; null: none).
-#}
{% macro lakerep_uows_ended_through(position) %}
    select distinct uow_id
    from {{ ref('int_log_records_judged') }}
    where
        record_type in ('C', 'R')
        and quarantine_reason is null
        and uow_id is not null
        and normalized_position <= {{ position }}
{% endmacro %}
