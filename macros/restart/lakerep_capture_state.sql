{#-
    SQL of the state (SPEC §3): the restart token pair of each source of a CDC session, as the
    latest completed capture cycle of that session committed it (capture_cycles' source rows, read by name:
    the state is read when a cycle starts and written when it ends). Columns session_name,
    source_owner, source_table, restart1, restart2, cycle_number; no rows before the first cycle.
    Argument: session_name — a literal, or none for every session.
-#}
{% macro lakerep_capture_state(session_name=none) %}
    {%- set cycles = lakerep_control_relation('capture_cycles') -%}
    {%- if cycles is not none %}
        select session_name, source_owner, source_table, restart1, restart2, cycle_number
        from (
            select
                *,
                max(cycle_number) over (partition by session_name) as latest_cycle_of_session
            from {{ cycles }}
            where
                record_kind = 'source'
                {%- if session_name is not none %}
                    and session_name = {{ lakerep_string_literal(session_name) }}
                {%- endif %}
        ) as cycles
        where cycle_number = latest_cycle_of_session
    {%- else %}
        select
            cast(null as string) as session_name,
            cast(null as string) as source_owner,
            cast(null as string) as source_table,
            cast(null as string) as restart1,
            cast(null as string) as restart2,
            cast(null as bigint) as cycle_number
        where false
    {%- endif %}
{% endmacro %}
