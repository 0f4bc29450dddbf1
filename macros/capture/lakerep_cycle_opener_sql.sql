{#-
    SQL of one row: the capture cycle this invocation works on, and the run that opened it.
    The cycle is the one after the last completed (the last with a commit record in
    capture_cycles). It was opened by an earlier invocation, and is now finished with that
    invocation's window, when something durable of it exists without its commit record: a
    restart decision made for it (restart_decisions.cycle_number), or landed records or unload
    rows judged for it (int_log_records_judged, int_snapshot_rows_judged: capture_cycle). Then
    the latest decision for it says which run opened it, else the run its judged rows name.
    Otherwise this invocation's run opens it (ADR 0011: no start record is written; the cycle's
    first durable write says it began). A lake whose decisions or judged rows name cycles past
    that one lost its commit records: the cycle is then a new one after the highest named, so
    cycle numbers, which the idempotent appends' transaction versions are, only rise.
    The numbers come as literals from lakerep_cycle_facts (facts), so every table but the
    small restart_decisions (joined by run) is read with a filter Delta skips files by.
    Columns: cycle_number, last_cycle (0 before the first), after_batch (the last completed
    cycle's up_to_batch: the cycle reads the batches above it), highest_landed (the highest
    landing batch as the invocation asks: a cycle it opens judges none above it), refused (the
    cycle's latest decision was a refusal: the next run decides again), already_opened (a decision or
    judged rows exist for it: an earlier invocation opened it, or, asked after this one's
    restart_decisions, this one), run_id, session_name, start_type (of the opener; this
    invocation's run's when it opens the cycle: lakerep_run()).
    Every relation is read by name: the models that ask run before some of them are written.
    Argument: facts — lakerep_cycle_facts().
-#}
{% macro lakerep_cycle_opener_sql(facts) %}
    {%- set run = lakerep_run() -%}
    {%- set cycles = lakerep_control_relation('capture_cycles') -%}
    {%- set decisions = lakerep_control_relation('restart_decisions') -%}
    {%- set judged = [
        lakerep_control_relation('int_log_records_judged', schema='staging'),
        lakerep_control_relation('int_snapshot_rows_judged', schema='staging'),
    ] | reject('none') | list -%}
    {%- set last_cycle = (facts.last_cycle or 0) | int -%}
    {#- The highest cycle a decision or a judged row names: a lake that lost its commit records
        opens the cycle after it, so cycle numbers only rise. -#}
    {%- set highest_named = [facts.highest_decided or 0, facts.judged_log_cycle or 0,
        facts.judged_snapshot_cycle or 0] | map('int') | max -%}
    {%- set cycle_number = highest_named + 1 if highest_named > last_cycle + 1 else last_cycle + 1 -%}
    {%- if highest_named < cycle_number -%}
        {#- Nothing names the cycle (every cycle but one cut off after its first durable write):
            no decision or judged row of it to read, and no scan of those tables. -#}
        {%- set decisions = none -%}
        {%- set judged = [] -%}
    {%- endif -%}
    {%- set highest_landed = [-1, facts.landed_log if facts.landed_log is not none else -1,
        facts.landed_snapshot if facts.landed_snapshot is not none else -1,
        facts.landed_events if facts.landed_events is not none else -1] | map('int') | max -%}
    with

    this_cycle as (
        select
            cast({{ cycle_number }} as bigint) as cycle_number,
            cast({{ last_cycle }} as bigint) as last_cycle,
            {%- if cycles is not none and last_cycle > 0 %}
                (
                    select coalesce(max(up_to_batch), 0) from {{ cycles }}
                    where record_kind = 'cycle' and cycle_number = {{ last_cycle }}
                ) as after_batch,
            {%- else %}
                cast(0 as bigint) as after_batch,
            {%- endif %}
            cast({{ highest_landed }} as bigint) as highest_landed
    ),

    decided as (
        {%- if decisions is not none %}
            select
                max_by(decisions.run_id, decisions.decided_at) as run_id,
                max_by(decisions.session_name, decisions.decided_at) as session_name,
                max_by(decisions.start_type, decisions.decided_at) as start_type,
                coalesce(max_by(decisions.refusal is not null, decisions.decided_at), false) as refused
            from {{ decisions }} as decisions
            where decisions.cycle_number = {{ cycle_number }}
        {%- else %}
            select
                cast(null as string) as run_id,
                cast(null as string) as session_name,
                cast(null as string) as start_type,
                false as refused
        {%- endif %}
    ),

    judged_for as (
        select max(capture_run_id) as run_id
        from (
            select cast(null as string) as capture_run_id where false
            {%- for relation in judged %}
                union all
                select capture_run_id from {{ relation }} where capture_cycle = {{ cycle_number }}
            {%- endfor %}
        ) as tagged
    ),

    judged_run as (
        {%- if decisions is not none %}
            select
                judged_for.run_id,
                max(decisions.session_name) as session_name,
                max(decisions.start_type) as start_type
            from judged_for
            left join {{ decisions }} as decisions on judged_for.run_id = decisions.run_id
            group by judged_for.run_id
        {%- else %}
            select
                run_id,
                cast(null as string) as session_name,
                cast(null as string) as start_type
            from judged_for
        {%- endif %}
    )

    select
        this_cycle.cycle_number,
        this_cycle.last_cycle,
        this_cycle.after_batch,
        this_cycle.highest_landed,
        coalesce(decided.run_id, judged_run.run_id) is not null as already_opened,
        decided.refused,
        coalesce(decided.run_id, judged_run.run_id, {{ lakerep_string_literal(run.run_id) }}) as run_id,
        case
            when decided.run_id is not null then decided.session_name
            when judged_run.run_id is not null
                then coalesce(judged_run.session_name, {{ lakerep_string_literal(run.session_name) }})
            else {{ lakerep_string_literal(run.session_name) }}
        end as session_name,
        case
            when decided.run_id is not null then decided.start_type
            when judged_run.run_id is not null
                then coalesce(judged_run.start_type, {{ lakerep_string_literal(run.start_type) }})
            else {{ lakerep_string_literal(run.start_type) }}
        end as start_type
    from this_cycle
    cross join decided
    cross join judged_run
{% endmacro %}
