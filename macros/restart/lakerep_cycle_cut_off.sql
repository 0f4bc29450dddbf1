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
