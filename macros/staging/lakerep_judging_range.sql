{#-
    The landing batches the judging model now compiling (int_log_records_judged,
    int_snapshot_rows_judged) judges in this invocation, as a dict: after_batch (the highest it
    holds; -1 for none), up_to_batch (the highest it may judge) and reason (why it judges none;
    none when it may judge). A cycle this invocation opens judges every batch landed when the
    invocation began (the opener's highest_landed), so both models judge the same batches though
    a loader lands meanwhile. A cycle an earlier invocation opened and left without its commit
    record is finished with its own batches, the highest either model judged for it: the model
    that had judged for it judges nothing more, the other one judges up to there, so a run cut
    off between the two appends loses no landed row (the window reads both up to that batch).
    The dict also names the cycle that reads what is judged and the run that opened it
    (cycle_number, run_id: lakerep_cycle_opener), and a recover run opening a cycle judges
    nothing (it reads nothing new; finishing one cut off, it judges the rest of its batches).
    Asks nothing of the lake: the opener's facts hold what it needs.
    Argument: judged — what the model judges: 'log' or 'snapshot' (the facts' judged_log_* or
    judged_snapshot_*).
-#}
{% macro lakerep_judging_range(judged) %}
    {%- set opener = lakerep_cycle_opener() -%}
    {#- The judging model's own highest batch and cycle, and both models', as the invocation began
        (the opener's facts: each model reads its table before it writes it). -#}
    {%- set facts = opener.facts -%}
    {%- set own_batch = facts['judged_' ~ judged ~ '_batch'] -%}
    {%- set own_cycle = facts['judged_' ~ judged ~ '_cycle'] -%}
    {%- set range = {
        'cycle_number': opener.cycle_number,
        'run_id': opener.run_id,
        'after_batch': own_batch | int if is_incremental() and own_batch is not none else -1,
        'up_to_batch': none,
        'reason': none,
    } -%}
    {%- if lakerep_run().start_type == 'recover' and not opener.already_opened -%}
        {{ return(dict(range, reason='a recover run reads nothing new')) }}
    {%- endif -%}
    {%- if not opener.already_opened -%}
        {{ return(dict(range, up_to_batch=opener.highest_landed | int)) }}
    {%- endif -%}
    {%- if is_incremental() and own_cycle is not none and own_cycle | int >= opener.cycle_number -%}
        {{ return(dict(range, reason='cycle ' ~ opener.cycle_number
            ~ ' is finished with what it judged when it began')) }}
    {%- endif -%}
    {%- set up_to_batch = [-1, facts.judged_log_batch if facts.judged_log_batch is not none else -1,
        facts.judged_snapshot_batch if facts.judged_snapshot_batch is not none else -1] | map('int') | max -%}
    {%- if up_to_batch <= range.after_batch -%}
        {{ return(dict(range, reason='cycle ' ~ opener.cycle_number
            ~ ' judged no batch above ' ~ range.after_batch)) }}
    {%- endif -%}
    {{ return(dict(range, up_to_batch=up_to_batch)) }}
{% endmacro %}
