{#-
    SQL: why a parsed row image (a map of column to text, null when there is no image or it is
    no JSON object) of a registered table cannot be typed as its registration says, or null (also
    for an unregistered table). Each value is checked with try_cast against its registered type,
    so a value its type cannot hold is quarantined instead of becoming null:
    'image_unknown_column' (a name not registered, a wrong case included), 'image_missing_key'
    (a key column absent or null), 'image_value_not_sent' (a value the source did not send, which
    the lake could not fill: lakerep_unsent_value), 'image_value_wrong_type' (`abc` for a number, `1.5` for an
    integer, a number too large for its decimal, a date or timestamp that is a number, which Spark
    would cast as a year; extra decimal places are rounded, as Spark casts). The values of the
    declared mapping (lakerep_declared_values) are checked as mapped: a year BC is negative.
    Reads the columns registered_types and registered_keys (lakerep_registration_lookup).
-#}
{% macro lakerep_registered_image_reason(values) %}
    case
        when {{ values }} is null or registered_types is null then null
        when exists(map_keys({{ values }}), name -> not map_contains_key(registered_types, name))
            then 'image_unknown_column'
        when exists(registered_keys, name -> try_element_at({{ values }}, name) is null)
            then 'image_missing_key'
        when exists(map_values({{ values }}), value -> value = {{ lakerep_string_literal(lakerep_unsent_value()) }})
            then 'image_value_not_sent'
        when exists(
            map_entries({{ values }}),
            entry -> entry.value is not null
            and {{ _lakerep_value_does_not_fit('entry.value', 'try_element_at(registered_types, entry.key)') }}
        )
            then 'image_value_wrong_type'
    end
{% endmacro %}


{#- SQL predicate: the text value cannot be cast to the type the SQL expression names (one of the
    registered types; text always can). -#}
{% macro _lakerep_value_does_not_fit(value, type_expression) -%}
    {%- set data_types = [] -%}
    {%- for registration in lakerep_registrations() -%}
        {%- for column in registration.columns -%}
            {%- if column.data_type | lower != 'string' and column.data_type | lower not in data_types -%}
                {%- do data_types.append(column.data_type | lower) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if data_types -%}
        coalesce(case {{ type_expression }}
            {%- for data_type in data_types %}
            when {{ lakerep_string_literal(data_type) }} then try_cast({{ value }} as {{ data_type }}) is null
            {%- if data_type in ('date', 'timestamp') %}
                {#- a date or time begins with its year: a number (days or microseconds since 1970)
                    would cast as a year #}
                or not {{ value }} rlike '^-?[0-9]{4,}-'
            {%- endif %}
            {%- endfor %}
        end, false)
    {%- else -%}
        false
    {%- endif -%}
{%- endmacro %}
