{#- SQL predicate: true when the owner/table columns name a registered source table. -#}
{% macro lakerep_is_registered(owner_column, table_column) %}
    {{- lakerep_is_one_of(lakerep_registrations(), owner_column, table_column) -}}
{% endmacro %}
