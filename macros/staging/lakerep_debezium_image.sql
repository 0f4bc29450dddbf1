{#-
    SQL: a Debezium row image (JSON text) with its registered date columns as the source log
    carries them. Debezium writes a PostgreSQL date as the days since 1970-01-01
    (io.debezium.time.Date, in every time.precision.mode); cast as it stands, such a number would
    become a year. An image with such a value is written again (to_json of its values), as
    yyyy-MM-dd; any other stays verbatim. A timestamp written as a number (MicroTimestamp or
    Timestamp, told apart only by the schema) and a decimal in the `precise` mode (base64) are
    not mapped: validation quarantines them (image_value_wrong_type). A timestamp with a zone
    (ZonedTimestamp) is ISO text already.
    Arguments: image, owner, table — SQL expressions of the image and its table's names.
-#}
{% macro lakerep_debezium_image(image, owner, table) %}
    {%- set tables = [] -%}
    {%- for registration in lakerep_registrations() -%}
        {%- set dates = [] -%}
        {%- for column in registration.columns if column.data_type | lower == 'date' -%}
            {%- do dates.append(lakerep_string_literal(column.name)) -%}
        {%- endfor -%}
        {%- if dates -%}
            {%- do tables.append((registration.source_owner ~ '.' ~ registration.source_table, dates)) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if tables -%}
        case concat({{ owner }}, '.', {{ table }})
        {%- for name, dates in tables %}
            when {{ lakerep_string_literal(name) }} then case
                when exists(
                    map_entries({{ lakerep_image_values(image) }}),
                    entry -> entry.key in ({{ dates | join(', ') }}) and entry.value rlike '^-?[0-9]+$'
                )
                    then to_json(transform_values(
                        {{ lakerep_image_values(image) }},
                        (name, value) -> case
                            when name in ({{ dates | join(', ') }}) and value rlike '^-?[0-9]+$'
                                then cast(date_add(date'1970-01-01', cast(value as int)) as string)
                            else value
                        end
                    ))
                else {{ image }}
            end
        {%- endfor %}
            else {{ image }}
        end
    {%- else -%}
        {{ image }}
    {%- endif -%}
{% endmacro %}
