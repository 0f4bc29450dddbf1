{#-
    Creates the landing schema and its tables when they do not exist yet, so that the source
    log contract (SPEC §2.1) is written down once, here, and a first `dbt build` works on an
    empty lake. Loaders append with INSERT INTO and take the columns from these tables.
    The schema's tables are listed once (lakerep_landing_table_names) and only the missing ones
    created: two statements per invocation, and the list tells staging, for nothing more,
    whether `lakerep land` has made the Debezium table. A lake of the earlier layout is refused
    first (lakerep_refuse_an_earlier_layout).
-#}
{% macro lakerep_create_landing_tables() %}
    {% if execute %}
        {% do lakerep_refuse_an_earlier_layout() %}
        {% set source_log = source('lakerep_raw', 'source_log') %}
        {% set source_snapshot = source('lakerep_raw', 'source_snapshot') %}
        {% set refresh_markers = source('lakerep_raw', 'refresh_markers') %}
        {% do run_query('create schema if not exists ' ~ source_log.schema) %}
        {% set existing = lakerep_landing_table_names(source_log.schema) %}
        {% if source_log.identifier | lower not in existing %}
        {% call statement('create_source_log') %}
            create table if not exists {{ source_log }} (
                log_position string,
                uow_id string,
                record_type string,
                source_owner string,
                source_table string,
                log_timestamp string,
                auth_id string,
                auth_token string,
                before_image string,
                after_image string,
                landing_batch bigint not null,
                landed_at timestamp not null
            ) using delta
        {% endcall %}
        {% endif %}
        {% if source_snapshot.identifier | lower not in existing %}
        {% call statement('create_source_snapshot') %}
            create table if not exists {{ source_snapshot }} (
                snapshot_id string not null,
                source_owner string not null,
                source_table string not null,
                unload_start_position string not null,
                unload_end_position string not null,
                row_image string,
                landing_batch bigint not null,
                landed_at timestamp not null
            ) using delta
        {% endcall %}
        {% endif %}
        {% if refresh_markers.identifier | lower not in existing %}
        {% call statement('create_refresh_markers') %}
            create table if not exists {{ refresh_markers }} (
                marker_id string not null,
                kind string not null,
                apply_qual string not null,
                set_name string not null,
                target_table string not null,
                refresh_start string,
                refresh_end string,
                marked_at timestamp not null,
                marked_by string not null
            ) using delta
        {% endcall %}
        {% endif %}
    {% endif %}
    {{ return('') }}
{% endmacro %}
