{#-
    The registered source tables: a list of dicts with source_owner, source_table, key_columns,
    columns ({name, data_type}), before_image_prefix, key_updates_as_delete_insert,
    ccd_condensed, ccd_complete, disable_refresh. The declaration is
    models/staging/_registrations__sources.yml; `lakerep scaffold` turns it into
    lakerep_registration_declarations() (macros/generated/), which is available at parse time.
-#}
{% macro lakerep_registrations() %}
    {{ return(lakerep_registration_declarations()) }}
{% endmacro %}


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


{#- SQL of one row per registered source table: source_owner, source_table. -#}
{% macro lakerep_registered_sources() %}
    {% for registration in lakerep_registrations() %}
        select
            {{ lakerep_string_literal(registration.source_owner) }} as source_owner,
            {{ lakerep_string_literal(registration.source_table) }} as source_table
        {{ 'union all' if not loop.last }}
    {% endfor %}
{% endmacro %}
