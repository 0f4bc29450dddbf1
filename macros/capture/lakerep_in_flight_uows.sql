{#-
    SQL of the UOWs still open when the previous capture cycle ended (its warm-start rows in
    capture_cycles: uow_id, source_owner, source_table, seq, the UOW's first change to the source,
    auth_token, auth_id, uow_time), none on a cold start, which keeps none (SPEC §4) or before the
    first cycle. capture_cycles is read by name: the cycle that reads these writes it last.
    Arguments: window — lakerep_capture_window(); cycles — the relation of capture_cycles
    (capture_cycles passes `this`), else it is looked up by name.
-#}
{% macro lakerep_in_flight_uows(window, cycles=none) %}
    {%- set cycles = cycles if cycles is not none else lakerep_control_relation('capture_cycles') -%}
    {%- if cycles is not none and not window.cold_start and window.last_cycle > 0 %}
        select uow_id, source_owner, source_table, seq, auth_token, auth_id, uow_time
        from {{ cycles }}
        where cycle_number = {{ window.last_cycle }} and record_kind = 'in_flight'
    {%- else %}
        select
            cast(null as string) as uow_id,
            cast(null as string) as source_owner,
            cast(null as string) as source_table,
            cast(null as string) as seq,
            cast(null as string) as auth_token,
            cast(null as string) as auth_id,
            cast(null as timestamp) as uow_time
        where false
    {%- endif %}
{% endmacro %}
