{#-
    SQL: a parsed row image with lakerep's declared mapping of the values a source may hold that
    Spark's types cannot (docs/postgresql.md), or null when none of its values is one, so that
    the image stays as it landed. By the column's registered type: `infinity` and `-infinity` of
    a date or timestamp become the type's last and first day (9999-12-31 23:59:59.999999,
    0001-01-01 00:00:00); a date or time before Christ (PostgreSQL writes `0044-03-15 BC`) its
    astronomical year (`-0043-03-15`: 1 BC is year 0, in the proleptic Gregorian calendar of
    both), which Spark would otherwise read as the same year AD; `NaN` and `Infinity` of a
    decimal null. Mapped here, before validation, so every later cast is Spark's own.
    Reads the column registered_types (lakerep_registration_lookup).
    Argument: values — a parsed image (a map of column to text, lakerep_image_values).
-#}
{% macro lakerep_declared_values(values) -%}
    case
        when registered_types is not null and exists(
            map_values({{ values }}),
            value -> value in ('infinity', '-infinity', 'NaN', 'Infinity', '-Infinity') or endswith(value, ' BC')
        )
            then transform_values(
                {{ values }},
                (name, value) -> {{ _lakerep_declared_value('value', 'try_element_at(registered_types, name)') }}
            )
    end
{%- endmacro %}


{#- SQL: one value's text by the declared mapping of its registered type. -#}
{% macro _lakerep_declared_value(value, data_type) -%}
    case
        when {{ data_type }} = 'date' and {{ value }} = 'infinity' then '9999-12-31'
        when {{ data_type }} = 'date' and {{ value }} = '-infinity' then '0001-01-01'
        when {{ data_type }} = 'timestamp' and {{ value }} = 'infinity' then '9999-12-31 23:59:59.999999'
        when {{ data_type }} = 'timestamp' and {{ value }} = '-infinity' then '0001-01-01 00:00:00'
        when {{ data_type }} in ('date', 'timestamp') and {{ value }} rlike '^[0-9]{4,}-.* BC$'
            then concat(
                case
                    when cast(regexp_extract({{ value }}, '^([0-9]+)', 1) as int) = 1 then '0000'
                    else concat('-', lpad(cast(cast(regexp_extract({{ value }}, '^([0-9]+)', 1) as int) - 1 as string), 4, '0'))
                end,
                regexp_extract({{ value }}, '^[0-9]+(.*) BC$', 1)
            )
        when {{ data_type }} like 'decimal%' and {{ value }} in ('NaN', 'Infinity', '-Infinity') then null
        else {{ value }}
    end
{%- endmacro %}
