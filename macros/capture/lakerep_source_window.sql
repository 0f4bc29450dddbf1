{#-
    One source's part of the window: its restart tokens and where it reads again from (or none).
    `registration`: anything with source_owner and source_table.
-#}
{% macro lakerep_source_window(window, registration) %}
    {{ return(window.get('sources', {}).get(
        registration.source_owner ~ '.' ~ registration.source_table,
        {'restart1': lakerep_lowest_position(), 'restart2': lakerep_lowest_position(), 'reread_from': none},
    )) }}
{% endmacro %}
