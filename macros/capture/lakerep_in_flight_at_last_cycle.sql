{#-
    SQL of the UOWs in flight when the last completed capture cycle ended (columns uow_id, seq,
    auth_token, auth_id, uow_time, source_owner, source_table), from its commit record
    (capture_cycles.in_flight_uows, read by name: capture_cycles is written at the end of the
    cycle that reads this). No rows before the first cycle. A lake whose last cycle was written
    by a version that kept them in a warm_start table (no in_flight_uows column yet) reads that
    table's rows instead, once: the cycle that reads them replaces the table with the view.
-#}
{% macro lakerep_in_flight_at_last_cycle() %}
    {%- set cycles = lakerep_control_relation('capture_cycles') -%}
    {%- set warm_start = lakerep_control_relation('warm_start') -%}
    {%- set kept_in_cycles = cycles is not none and (
        warm_start is none or not warm_start.is_table
        or 'in_flight_uows' in adapter.get_columns_in_relation(cycles) | map(attribute='name') | list
    ) -%}
    {%- if kept_in_cycles %}
        select
            uow.UOWID as uow_id,
            uow.SEQ as seq,
            uow.AUTHTKN as auth_token,
            uow.AUTHID as auth_id,
            uow.UOWTIME as uow_time,
            cycles.source_owner,
            cycles.source_table
        from (
            select
                *,
                max(cycle_number) over () as last_cycle_number
            from {{ cycles }}
        ) as cycles
        lateral view explode(cycles.in_flight_uows) in_flight as uow
        where cycles.cycle_number = cycles.last_cycle_number
    {%- elif warm_start is not none and warm_start.is_table %}
        select
            UOWID as uow_id,
            SEQ as seq,
            AUTHTKN as auth_token,
            AUTHID as auth_id,
            UOWTIME as uow_time,
            cast(null as string) as source_owner,
            cast(null as string) as source_table
        from {{ warm_start }}
        where UOWID is not null
    {%- else %}
        select
            cast(null as string) as uow_id,
            cast(null as string) as seq,
            cast(null as string) as auth_token,
            cast(null as string) as auth_id,
            cast(null as timestamp) as uow_time,
            cast(null as string) as source_owner,
            cast(null as string) as source_table
        where false
    {%- endif %}
{% endmacro %}
