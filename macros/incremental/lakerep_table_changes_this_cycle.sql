{#-
    Whether one registered table's CD or CCD model may write this cycle: a cold start empties
    them. With in_flight, also whether a UOW still in flight may have changed it
    (lakerep_tables_in_cycle).
-#}
{% macro lakerep_table_changes_this_cycle(source, in_flight=false) %}
    {%- set tables = lakerep_tables_in_cycle(in_flight) -%}
    {{ return(tables is none or lakerep_cycle_window().cold_start or source in tables) }}
{% endmacro %}
