{#-
    The source tables' schema history (ADR 0012; lakerep.sources.schema_history writes it): rows
    of [source_owner, source_table, log_position, change_kind, column_name, type_after,
    column_default, detail, columns_after] in log order, read once per dbt invocation; none while
    dbt parses, in a unit test, or before the first change was recorded. The relation comes from the graph, not
    from a source reference, so a model that reads the registrations takes no dependency on it.
-#}
{% macro lakerep_schema_history() %}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set found = [] -%}
    {#- a unit test's graph has no sources: its models take the declarations as written -#}
    {%- for node in (graph.get('sources') or {}).values()
        if node.source_name == 'lakerep_raw' and node.name == 'source_schema_history' -%}
        {%- do found.append(api.Relation.create(schema=node.schema, identifier=node.identifier)) -%}
    {%- endfor -%}
    {%- if not found -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set history = found[0] -%}
    {%- set memo = graph.setdefault('lakerep_landing_tables', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- if run_query('show schemas like ' ~ lakerep_string_literal(history.schema)).rows | length == 0 -%}
            {{ return([]) }}
        {%- endif -%}
    {%- endif -%}
    {%- if history.identifier | lower not in lakerep_landing_table_names(history.schema) -%}
        {{ return([]) }}
    {%- endif -%}
    {{ return(lakerep_rows_once(
        'select source_owner, source_table, log_position, change_kind, column_name, type_after, '
        ~ 'column_default, detail, columns_after from ' ~ history ~ ' order by log_position, change_kind, column_name'
    )) }}
{% endmacro %}
