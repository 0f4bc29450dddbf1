{#-
    Whether int_snapshot_rows_judged judges landed unload rows in this invocation, as
    lakerep_log_judging decides it for the log: a dict with judges, reason, cycle_number, run_id,
    after_batch and up_to_batch (lakerep_judging_range). A cycle without a new
    unload costs a small query, not a validation of every unload held (they are never pruned).
-#}
{% macro lakerep_snapshot_judging() %}
    {%- set judging = {'judges': false, 'reason': none, 'cycle_number': 0, 'run_id': none, 'after_batch': -1,
        'up_to_batch': none} -%}
    {%- if not execute -%}
        {{ return(judging) }}
    {%- endif -%}
    {%- do judging.update(lakerep_judging_range('snapshot')) -%}
    {%- if judging.reason is not none -%}
        {{ return(judging) }}
    {%- endif -%}
    {%- set found = run_query(
        'select count(*) as landed from (' ~ lakerep_new_snapshot_rows(judging.after_batch, judging.up_to_batch) ~ ') as new_rows'
    ).rows[0] -%}
    {%- if found.landed == 0 -%}
        {{ return(dict(judging, reason='no unload landed above batch ' ~ judging.after_batch)) }}
    {%- endif -%}
    {{ return(dict(judging, judges=true)) }}
{% endmacro %}
