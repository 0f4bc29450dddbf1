{#-
    Reading Debezium's PostgreSQL change events (ADR 0009). The event value as landed, with or
    without JsonConverter's schema/payload wrapper, parsed once into the fields lakerep maps.
    Fields that hold objects (before, after) are kept as JSON text: from_json copies an object
    into a string field verbatim.
-#}
{% macro lakerep_debezium_events(events_relation) %}
    {%- if events_relation is none -%}
        select
            cast(null as string) as event_value,
            cast(null as string) as landed_file,
            cast(null as bigint) as landed_line,
            cast(null as bigint) as landing_batch,
            cast(null as timestamp) as landed_at,
            cast(null as {{ _lakerep_debezium_event_type() }}) as event
        where false
    {%- else -%}
        select
            event_value,
            landed_file,
            landed_line,
            landing_batch,
            landed_at,
            from_json(
                case
                    when from_json(event_value, 'schema string, payload string').schema is not null
                        then from_json(event_value, 'schema string, payload string').payload
                    else event_value
                end,
                '{{ _lakerep_debezium_event_type() }}'
            ) as event
        from {{ events_relation }}
    {%- endif -%}
{% endmacro %}


{#- The fields of a change event and of a transaction BEGIN/END event that lakerep reads. -#}
{% macro _lakerep_debezium_event_type() -%}
    struct<op: string, before: string, after: string,
        source: struct<`schema`: string, `table`: string, lsn: string, txId: string, ts_ms: string, ts_us: string, snapshot: string>,
        transaction: struct<id: string, total_order: string>,
        status: string, id: string, event_count: string, ts_ms: string,
        data_collections: array<struct<data_collection: string, event_count: string>>>
{%- endmacro %}
