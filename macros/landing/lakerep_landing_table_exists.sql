{#-
    Whether a table of the landing schema exists: no statement of its own once the invocation has
    listed the schema (lakerep_landing_table_names, as the on-run-start hook does); before that,
    the schema is looked for first, as listing a missing one fails.
    Argument: relation — the landing table.
-#}
{% macro lakerep_landing_table_exists(relation) %}
    {%- if graph.get('lakerep_landing_tables', {}).get('invocation_id') != invocation_id
        and run_query('show schemas like ' ~ lakerep_string_literal(relation.schema)).rows | length == 0 -%}
        {{ return(false) }}
    {%- endif -%}
    {{ return(relation.identifier | lower in lakerep_landing_table_names(relation.schema)) }}
{% endmacro %}
