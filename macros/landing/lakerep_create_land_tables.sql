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
