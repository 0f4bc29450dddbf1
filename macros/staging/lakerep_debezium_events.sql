{#-
    Reading Debezium's PostgreSQL change events (ADR 0009). The event value as landed, with or
    without JsonConverter's schema/payload wrapper, parsed once into the fields lakerep maps.
    Fields that hold objects (before, after) are kept as JSON text: from_json copies an object
    into a string field verbatim. value_types: of a wrapped event, its row fields that the schema
    gives a logical type (a name: io.debezium.time.MicroTimestamp, Kafka Connect's Decimal, ...),
    with the type and its scale; null for an event without the wrapper.
-#}
{% macro lakerep_debezium_events(events_relation) %}
    {%- if events_relation is none -%}
        select
            cast(null as string) as event_value,
            cast(null as string) as landed_file,
            cast(null as bigint) as landed_line,
            cast(null as bigint) as landing_batch,
            cast(null as timestamp) as landed_at,
            cast(null as {{ _lakerep_debezium_event_type() }}) as event,
            cast(null as {{ _lakerep_debezium_value_types_type() }}) as value_types
        where false
    {%- else -%}
        select
            event_value,
            landed_file,
            landed_line,
            landing_batch,
            landed_at,
            from_json(
                case when wrapper.schema is not null then wrapper.payload else event_value end,
                '{{ _lakerep_debezium_event_type() }}'
            ) as event,
            map_from_entries(transform(
                filter(
                    try_element_at(filter(wrapper.schema.fields, part -> part.field = 'after'), 1).fields,
                    field -> field.name is not null
                ),
                field -> struct(
                    field.field as key,
                    named_struct('logical', field.name, 'scale', try_cast(field.parameters['scale'] as int)) as value
                )
            )) as value_types
        from (
            select
                *,
                from_json(
                    event_value,
                    '{{ _lakerep_debezium_wrapper_type() }}'
                ) as wrapper
            from {{ events_relation }}
        ) as events
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


{#- The type of value_types: field name to its logical type and scale. -#}
{% macro _lakerep_debezium_value_types_type() -%}
    map<string, struct<logical: string, scale: int>>
{%- endmacro %}


{#- The schema/payload wrapper: of the schema, each row field's name, logical type and parameters. -#}
{% macro _lakerep_debezium_wrapper_type() -%}
    schema struct<fields: array<struct<field: string,
        fields: array<struct<field: string, name: string, parameters: map<string, string>>>>>>,
    payload string
{%- endmacro %}
