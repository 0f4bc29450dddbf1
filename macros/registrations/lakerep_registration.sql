{#-
    One registration (see lakerep_registrations) by owner and table name; a compile error naming
    the table when it is not registered.
-#}
{% macro lakerep_registration(source_owner, source_table) %}
    {% for registration in lakerep_registrations() %}
        {% if registration.source_owner == source_owner and registration.source_table == source_table %}
            {{ return(registration) }}
        {% endif %}
    {% endfor %}
    {{ exceptions.raise_compiler_error(source_owner ~ '.' ~ source_table ~ ' is not registered in models/staging/_registrations__sources.yml') }}
{% endmacro %}


{#- Name of the CD model of a registered table (lakerep scaffold writes the same names). -#}
{% macro lakerep_cd_model_name(source_owner, source_table) -%}
    cd_{{ source_owner | lower }}__{{ source_table | lower }}
{%- endmacro %}


{#- A Jinja value as a Spark SQL string literal (backslash and quote escaped), or a typed null. -#}
{% macro lakerep_string_literal(value) -%}
    {%- if value is none -%}
        cast(null as string)
    {%- else -%}
        '{{ value | replace("\\", "\\\\") | replace("'", "\\'") }}'
    {%- endif -%}
{%- endmacro %}
