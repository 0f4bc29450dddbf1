{#-
    The names of the tables in the landing schema, read once per dbt invocation: the on-run-start
    hook (lakerep_create_landing_tables) lists them to create only the missing ones, and staging
    asks whether the Debezium table exists without a statement of its own, so the canonical
    path's cycle sends no more statements than before. The memo lives in the graph, which a
    running session's invocations share: it is keyed by invocation. Empty when the schema does
    not exist yet.
-#}
{% macro lakerep_landing_table_names(schema) %}
    {%- set memo = graph.setdefault('lakerep_landing_tables', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id or memo.get('schema') != schema -%}
        {%- set listed = run_query("show tables in " ~ schema) -%}
        {%- do memo.update({
            'invocation_id': invocation_id,
            'schema': schema,
            'names': listed.rows | map(attribute=1) | map('lower') | list,
        }) -%}
    {%- endif -%}
    {{ return(memo.names) }}
{% endmacro %}
