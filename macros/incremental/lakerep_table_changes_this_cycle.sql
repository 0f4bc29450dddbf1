{#- Whether one registered table's CD or CCD model may write this cycle: a cold start empties them. -#}
{% macro lakerep_table_changes_this_cycle(source) %}
    {%- set tables = lakerep_tables_in_cycle() -%}
    {{ return(tables is none or lakerep_cycle_window().cold_start or source in tables) }}
{% endmacro %}
