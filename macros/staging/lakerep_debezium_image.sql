{#-
    SQL: a Debezium row image (JSON text) with its values as the source log carries them. An image
    with a value to map is written again (to_json of its values); any other stays verbatim.
    Debezium writes a PostgreSQL date as the days since 1970-01-01 (io.debezium.time.Date, in
    every time.precision.mode): cast as it stands, such a number would become a year, so a
    registered date column's number is mapped with or without the schema. The other encodings
    (lakerep_debezium_value) are known from the schema wrapper only: without it `lakerep land`
    refuses a timestamp written as a number (milliseconds or microseconds) and a `precise`
    decimal (base64), and any that stays as it is here is quarantined (image_value_wrong_type),
    never cast into another value. A timestamp with a zone (ZonedTimestamp) is ISO text.
    Arguments: image — SQL of the image; date_columns — SQL of its table's registered date
    columns (lakerep_registered_date_columns), null for a table without any; value_types — SQL of
    the event's field types (lakerep_debezium_events), null for an event without the wrapper.
-#}
{% macro lakerep_debezium_image(image, date_columns, value_types) -%}
    case
        when coalesce(size({{ value_types }}), 0) > 0 or ({{ date_columns }} is not null and exists(
            map_entries({{ lakerep_image_values(image) }}),
            entry -> array_contains({{ date_columns }}, entry.key) and entry.value rlike '^-?[0-9]+$'
        ))
            then to_json(transform_values(
                {{ lakerep_image_values(image) }},
                (name, value) -> case
                    when array_contains({{ date_columns }}, name) and value rlike '^-?[0-9]+$'
                        then {{ lakerep_debezium_date('value') }}
                    else coalesce({{ lakerep_debezium_value('value', 'try_element_at(' ~ value_types ~ ', name)') }}, value)
                end
            ))
        else {{ image }}
    end
{%- endmacro %}
