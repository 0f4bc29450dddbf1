{#-
    SQL: the key of a registered table's row, as JSON text: an array of the key columns' values,
    each cast to its registered type and back to text, so that one key gives one text however
    the image wrote it (`12.5` and `12.50` for a decimal(12,2) are one key). Apply computes the
    same text from a target's typed key columns (lakerep_typed_row_key). Null for an image that
    is absent, of an unregistered table, or without a key column. Reads the columns
    registered_types and registered_keys (lakerep_registration_lookup).
    Argument: values — a parsed image (a map of column to text).
-#}
{% macro lakerep_row_key(values) -%}
    case
        when registered_keys is not null and {{ values }} is not null
            and not exists(registered_keys, name -> try_element_at({{ values }}, name) is null)
            then to_json(transform(
                registered_keys,
                name -> {{ _lakerep_canonical_text('try_element_at(' ~ values ~ ', name)', 'try_element_at(registered_types, name)') }}
            ))
    end
{%- endmacro %}


{#- SQL: a value's text cast to the type the SQL expression names and back to text (one branch
    per registered type that is not text). -#}
{% macro _lakerep_canonical_text(value, type_expression) -%}
    {%- set data_types = [] -%}
    {%- for registration in lakerep_registrations() -%}
        {%- for column in registration.columns if column.name in registration.key_columns -%}
            {%- if column.data_type | lower != 'string' and column.data_type | lower not in data_types -%}
                {%- do data_types.append(column.data_type | lower) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if data_types -%}
        case {{ type_expression }}
            {%- for data_type in data_types %}
            when {{ lakerep_string_literal(data_type) }} then cast(try_cast({{ value }} as {{ data_type }}) as string)
            {%- endfor %}
            else {{ value }}
        end
    {%- else -%}
        {{ value }}
    {%- endif -%}
{%- endmacro %}
