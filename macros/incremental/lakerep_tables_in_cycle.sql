{#-
    The registered tables ("OWNER.TABLE") that may have something to write this capture cycle
    (lakerep_cycle_reads), or none when a relation it reads is not built: then every table may
    change. A table outside it gets no CD row, no CCD row and no change for a member that was up
    to date.
-#}
{% macro lakerep_tables_in_cycle() %}
    {%- set reads = lakerep_cycle_reads() -%}
    {{ return(none if reads is none else reads | map(attribute='source') | unique | list) }}
{% endmacro %}
