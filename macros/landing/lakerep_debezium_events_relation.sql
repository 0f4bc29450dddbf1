{#-
    The landing table of Debezium events, or none when `lakerep land --format debezium` has not
    made it: staging reads it only when it exists (decided when the model compiles).
-#}
{% macro lakerep_debezium_events_relation() %}
    {%- set events = source('lakerep_raw', 'debezium_events') -%}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(events if lakerep_landing_table_exists(events) else none) }}
{% endmacro %}
