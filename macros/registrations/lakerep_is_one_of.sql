{#-
    SQL predicate: the owner/table columns name one of `registrations` (false for none).
    Arguments: registrations — a list of registrations; owner_column, table_column — SQL.
-#}
{% macro lakerep_is_one_of(registrations, owner_column='source_owner', table_column='source_table') %}
    {%- set names = [] -%}
    {%- for registration in registrations -%}
        {%- do names.append(lakerep_string_literal(registration.source_owner ~ '.' ~ registration.source_table)) -%}
    {%- endfor -%}
    {%- if names -%}
        coalesce(concat({{ owner_column }}, '.', {{ table_column }}) in ({{ names | join(', ') }}), false)
    {%- else -%}
        false
    {%- endif -%}
{% endmacro %}
