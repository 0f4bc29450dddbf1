{#-
    The registered tables ("OWNER.TABLE") that may have something to write this capture cycle
    (lakerep_cycle_reads), or none when a relation it reads is not built: then every table may
    change. A table outside it gets no CD row, no CCD row and no change for a member that was up
    to date. With in_flight, also the tables with a change at or above the previous resync
    position, which a UOW still in flight may have made (their RESTART1: capture_cycles).
-#}
{% macro lakerep_tables_in_cycle(in_flight=false) %}
    {%- set reads = lakerep_cycle_reads() -%}
    {%- if reads is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return((reads if in_flight else reads | selectattr('in_cycle')) | map(attribute='source') | unique | list) }}
{% endmacro %}
