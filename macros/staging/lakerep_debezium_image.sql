{#-
    SQL: a Debezium row image (JSON text) with its registered date columns as the source log
    carries them. Debezium writes a PostgreSQL date as the days since 1970-01-01
    (io.debezium.time.Date, in every time.precision.mode); cast as it stands, such a number would
    become a year. An image with such a value is written again (to_json of its values), as
    yyyy-MM-dd; any other stays verbatim. A timestamp written as a number (MicroTimestamp or
    Timestamp, told apart only by the schema) and a decimal in the `precise` mode (base64) are
    not mapped: validation quarantines them (image_value_wrong_type). A timestamp with a zone
    (ZonedTimestamp) is ISO text already.
    Arguments: image — SQL of the image; date_columns — SQL of its table's registered date
    columns (lakerep_registered_date_columns), null for a table without any.
-#}
{% macro lakerep_debezium_image(image, date_columns) -%}
    case
        when {{ date_columns }} is not null and exists(
            map_entries({{ lakerep_image_values(image) }}),
            entry -> array_contains({{ date_columns }}, entry.key) and entry.value rlike '^-?[0-9]+$'
        )
            then to_json(transform_values(
                {{ lakerep_image_values(image) }},
                (name, value) -> case
                    when array_contains({{ date_columns }}, name) and value rlike '^-?[0-9]+$'
                        then cast(date_add(date'1970-01-01', cast(value as int)) as string)
                    else value
                end
            ))
        else {{ image }}
    end
{%- endmacro %}
