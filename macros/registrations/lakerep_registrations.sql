{#-
    The registered source tables, read from the one declaration
    (models/staging/_registrations__sources.yml) through dbt's graph.
    Returns a list of the `meta.lakerep` dicts, each with a `columns` list added
    ({name, data_type}), in declaration order. Empty at parse time.
-#}
{% macro lakerep_registrations() %}
    {% set registrations = [] %}
    {% if execute %}
        {% for node in graph.sources.values() | sort(attribute='unique_id') %}
            {% set registration = (node.config.meta or {}).get('lakerep') or (node.meta or {}).get('lakerep') %}
            {% if registration %}
                {% set columns = [] %}
                {% for column in node.columns.values() %}
                    {% do columns.append({'name': column.name, 'data_type': column.data_type}) %}
                {% endfor %}
                {% do registrations.append(dict(registration, columns=columns)) %}
            {% endif %}
        {% endfor %}
    {% endif %}
    {{ return(registrations) }}
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
