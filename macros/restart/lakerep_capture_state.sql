{#-
    SQL of the state (SPEC §3): the restart token pair of each source of a CDC session, as the
    latest completed capture cycle of that session committed it (capture_cycles, read by name:
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
            {%- if session_name is not none %}
                where session_name = {{ lakerep_string_literal(session_name) }}
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


{#-
    SQL boolean: the last capture cycle started (it has capture_window rows) but never wrote its
    commit record (capture_cycles): it was cut off, and the next invocation finishes it.
-#}
{% macro lakerep_cycle_cut_off() -%}
    {%- set windows = lakerep_control_relation('capture_window') -%}
    {%- set cycles = lakerep_control_relation('capture_cycles') -%}
    {%- if windows is none -%}
        false
    {%- else -%}
        coalesce(
            (select max(cycle_number) from {{ windows }})
            > {% if cycles is none %}0{% else %}(select coalesce(max(cycle_number), 0) from {{ cycles }}){% endif %},
            false
        )
    {%- endif -%}
{%- endmacro %}


{#-
    A relation of this project by name (in the control schema, or the custom schema given), or
    none when it does not exist yet: for the tables a cycle reads at its start and writes later
    in the cycle, which a ref would turn into a loop in the DAG.
-#}
{% macro lakerep_control_relation(identifier, schema='control') %}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(adapter.get_relation(
        database=this.database,
        schema=generate_schema_name(schema, none),
        identifier=identifier,
    )) }}
{% endmacro %}
