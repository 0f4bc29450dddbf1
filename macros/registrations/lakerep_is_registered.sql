{#- SQL predicate: true when the owner/table columns name a registered source table. -#}
{% macro lakerep_is_registered(owner_column, table_column) %}
    {%- set names = [] -%}
    {%- for registration in lakerep_registrations() -%}
        {%- do names.append("'" ~ registration.source_owner ~ "." ~ registration.source_table ~ "'") -%}
    {%- endfor -%}
    {%- if names -%}
        coalesce(concat({{ owner_column }}, '.', {{ table_column }}) in ({{ names | join(', ') }}), false)
    {%- else -%}
        false
    {%- endif -%}
{% endmacro %}
