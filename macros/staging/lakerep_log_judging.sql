{#-
    Whether int_log_records_judged judges landed records in this invocation, and on what, as
    literals (two queries, the first shared with every model that asks who opened the cycle): a
    dict with judges, reason (why not), cycle_number and run_id (the cycle that reads what it
    judges, and the run that opened it: lakerep_cycle_opener_sql), after_batch (the highest
    landing batch it holds; -1 for none), up_to_batch (the highest it may judge; none for all),
    held (whether the model's table holds records: not on a first build) and bounds of the new
    records (lowest_position, highest_position, lowest_uow, highest_uow, for the checks against the records held; none when there are none), and fills
    (whether an after image holds a value its source did not send, lakerep_unsent_value). It judges when there are
    new records in its range (lakerep_judging_range: a cycle opened earlier is finished with its
    own batches; a recover run opening a cycle reads nothing new).
-#}
{% macro lakerep_log_judging() %}
    {%- set judging = {'judges': false, 'reason': none, 'cycle_number': 0, 'run_id': none,
        'after_batch': -1, 'up_to_batch': none, 'held': false, 'bounds': none, 'fills': false} -%}
    {%- if not execute -%}
        {{ return(judging) }}
    {%- endif -%}
    {%- do judging.update(lakerep_judging_range('log')) -%}
    {%- do judging.update({'held': is_incremental()}) -%}
    {%- if judging.reason is not none -%}
        {{ return(judging) }}
    {%- endif -%}
    {%- set query -%}
        select
            count(*) as records,
            min(upper(log_position)) as lowest_position,
            max(upper(log_position)) as highest_position,
            min(uow_id) as lowest_uow,
            max(uow_id) as highest_uow,
            count_if(contains(after_image, {{ lakerep_string_literal(lakerep_unsent_value() | tojson) }})) as lacking
        from ({{ lakerep_new_log_records(judging.after_batch, judging.up_to_batch) }}) as new_records
    {%- endset -%}
    {%- set found = run_query(query).rows[0] -%}
    {%- if found.records == 0 -%}
        {{ return(dict(judging, reason='no landing batch above ' ~ judging.after_batch)) }}
    {%- endif -%}
    {%- if found.lowest_position is not none and found.lowest_uow is not none -%}
        {%- do judging.update({'bounds': {
            'lowest_position': found.lowest_position, 'highest_position': found.highest_position,
            'lowest_uow': found.lowest_uow, 'highest_uow': found.highest_uow,
        }}) -%}
    {%- endif -%}
    {{ return(dict(judging, judges=true, fills=found.lacking > 0)) }}
{% endmacro %}
