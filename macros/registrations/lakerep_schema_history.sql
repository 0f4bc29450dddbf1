{#-
    The source tables' schema history (ADR 0012; lakerep.sources.schema_history writes it): rows
    of [source_owner, source_table, log_position, change_kind, column_name, type_after,
    column_default, detail, columns_after] in log order, read once per dbt invocation (a memo in
    its graph: every macro that reads a registration asks); none while dbt parses, in a unit test,
    or before the first change was recorded. The relation comes from the graph, not from a source
    reference, so a model that reads the registrations takes no dependency on it.
-#}
{% macro lakerep_schema_history() %}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set memo = graph.setdefault('lakerep_schema_history', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- do memo.clear() -%}
        {%- do memo.update({'invocation_id': invocation_id, 'rows': _lakerep_schema_history_rows()}) -%}
    {%- endif -%}
    {{ return(memo.rows) }}
{% endmacro %}


{#- The history's rows, read now. -#}
{% macro _lakerep_schema_history_rows() %}
    {%- set found = [] -%}
    {#- a unit test's graph has no sources: its models take the declarations as written -#}
    {%- for node in (graph.get('sources') or {}).values()
        if node.source_name == 'lakerep_raw' and node.name == 'source_schema_history' -%}
        {%- do found.append(api.Relation.create(schema=node.schema, identifier=node.identifier)) -%}
    {%- endfor -%}
    {%- if not found or not lakerep_landing_table_exists(found[0]) -%}
        {{ return([]) }}
    {%- endif -%}
    {{ return(run_query(
        'select source_owner, source_table, log_position, change_kind, column_name, type_after, '
        ~ 'column_default, detail, columns_after from ' ~ found[0] ~ ' order by log_position, change_kind, column_name'
    ).rows) }}
{% endmacro %}
