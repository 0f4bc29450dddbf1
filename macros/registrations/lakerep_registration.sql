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
