{#-
    The landing tables of `lakerep land` (ADR 0009), created on first use by that command, never
    by a cycle: a lake that takes no Debezium events pays nothing for them (the Debezium table is
    made only by `--format debezium`). The events land as
    Kafka Connect wrote them, one row per line of a file, the event as text, so a malformed event
    still lands and is quarantined by staging. landed_files records every file `lakerep land`
    took, so the same file (name and content) is never landed twice.
-#}
{% macro lakerep_create_land_tables(debezium=false) %}
    {% if execute %}
        {% set events = source('lakerep_raw', 'debezium_events') %}
        {% set files = source('lakerep_raw', 'landed_files') %}
        {% do run_query('create schema if not exists ' ~ events.schema) %}
        {% if debezium %}
        {% call statement('create_debezium_events') %}
            create table if not exists {{ events }} (
                event_value string,
                landed_file string not null,
                landed_line bigint not null,
                landing_batch bigint not null,
                landed_at timestamp not null
            ) using delta
        {% endcall %}
        {% endif %}
        {% call statement('create_landed_files') %}
            create table if not exists {{ files }} (
                file_name string not null,
                file_sha256 string not null,
                file_format string not null,
                line_count bigint not null,
                landing_batch bigint not null,
                landed_at timestamp not null
            ) using delta
        {% endcall %}
    {% endif %}
    {{ return('') }}
{% endmacro %}


{#-
    The names of the tables in the landing schema, read once per dbt invocation: the on-run-start
    hook (lakerep_create_landing_tables) lists them to create only the missing ones, and staging
    asks whether the Debezium table exists without a statement of its own, so the canonical
    path's cycle sends no more statements than before. The memo lives in the graph, which a
    running session's invocations share: it is keyed by invocation. Empty when the schema does
    not exist yet.
-#}
{% macro lakerep_landing_table_names(schema) %}
    {%- set memo = graph.setdefault('lakerep_landing_tables', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id or memo.get('schema') != schema -%}
        {%- set listed = run_query("show tables in " ~ schema) -%}
        {%- do memo.update({
            'invocation_id': invocation_id,
            'schema': schema,
            'names': listed.rows | map(attribute=1) | map('lower') | list,
        }) -%}
    {%- endif -%}
    {{ return(memo.names) }}
{% endmacro %}


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
