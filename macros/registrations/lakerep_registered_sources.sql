{#- SQL of one row per registered source table: source_owner, source_table. -#}
{% macro lakerep_registered_sources() %}
    {% for registration in lakerep_registrations() %}
        select
            {{ lakerep_string_literal(registration.source_owner) }} as source_owner,
            {{ lakerep_string_literal(registration.source_table) }} as source_table
        {{ 'union all' if not loop.last }}
    {% endfor %}
{% endmacro %}
