{#-
    The landing table of Debezium events, or none when `lakerep land --format debezium` has not
    made it: staging reads it only when it exists (decided when the model compiles).
-#}
{% macro lakerep_debezium_events_relation() %}
    {%- set events = source('lakerep_raw', 'debezium_events') -%}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set schemas = run_query('show schemas like ' ~ lakerep_string_literal(events.schema))
        if graph.get('lakerep_landing_tables', {}).get('invocation_id') != invocation_id else none -%}
    {%- if schemas is not none and schemas.rows | length == 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(events if events.identifier | lower in lakerep_landing_table_names(events.schema) else none) }}
{% endmacro %}
