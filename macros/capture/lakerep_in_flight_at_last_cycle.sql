{#-
    SQL of the UOWs in flight when the last completed capture cycle ended (columns uow_id, seq,
    auth_token, auth_id, uow_time, source_owner, source_table), from its commit record
    (capture_cycles.in_flight_uows, read by name: capture_cycles is written at the end of the
    cycle that reads this). No rows before the first cycle. A lake last written by a version
    that kept them in a warm_start table reads that table's rows while the last completed cycle
    has none in its own record (null in_flight_uows, or no such column yet: the column's ALTER
    commits before the cycle's rows do); the view replaces the table in the cycle that reads it.
-#}
{% macro lakerep_in_flight_at_last_cycle() %}
    {%- set cycles = lakerep_control_relation('capture_cycles') -%}
    {%- set warm_start = lakerep_control_relation('warm_start') -%}
    {%- set old_table = warm_start is not none and warm_start.is_table -%}
    {%- set cycles_keep_them = cycles is not none and (
        not old_table or 'in_flight_uows' in adapter.get_columns_in_relation(cycles) | map(attribute='name') | list
    ) -%}
    {%- set last_cycle -%}
        select * from (
            select
                *,
                max(cycle_number) over () as last_cycle_number
            from {{ cycles }}
        ) as cycles
        where cycle_number = last_cycle_number
    {%- endset %}
    select
        cast(null as string) as uow_id,
        cast(null as string) as seq,
        cast(null as string) as auth_token,
        cast(null as string) as auth_id,
        cast(null as timestamp) as uow_time,
        cast(null as string) as source_owner,
        cast(null as string) as source_table
    where false
    {%- if cycles_keep_them %}
        union all
        select
            uow.UOWID,
            uow.SEQ,
            uow.AUTHTKN,
            uow.AUTHID,
            uow.UOWTIME,
            last_cycle.source_owner,
            last_cycle.source_table
        from ({{ last_cycle }}) as last_cycle
            lateral view explode(last_cycle.in_flight_uows) in_flight as uow
    {%- endif %}
    {%- if old_table %}
        union all
        select UOWID, SEQ, AUTHTKN, AUTHID, UOWTIME, cast(null as string), cast(null as string)
        from {{ warm_start }}
        where
            UOWID is not null
            {%- if cycles_keep_them %}
                and not exists (select 1 from ({{ last_cycle }}) as kept where kept.in_flight_uows is not null)
            {%- endif %}
    {%- endif %}
{% endmacro %}
