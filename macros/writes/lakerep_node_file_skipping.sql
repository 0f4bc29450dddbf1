{#-
    Delta's file skipping (spark.databricks.delta.stats.skipping) as the node's config
    `lakerep_file_skipping` says: on unless it says otherwise. Skipping costs a Spark job per table
    scan while Spark plans the statement, and only a filter of literals on a column gains from it
    (ADR 0006). A SET only when the node before wanted the other: the invocation's graph remembers
    the last setting (on at its start: on-run-start sets it, and on-run-end sets it on again).
-#}
{% macro lakerep_node_file_skipping() %}
    {%- set enabled = config.get('lakerep_file_skipping', true) -%}
    {%- set memo = graph.setdefault('lakerep_file_skipping', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- do memo.update({'invocation_id': invocation_id, 'enabled': true}) -%}
    {%- endif -%}
    {%- if memo.enabled != enabled -%}
        {%- call statement('lakerep_file_skipping') -%}
            {{ lakerep_file_skipping_sql(enabled) }}
        {%- endcall -%}
        {%- do memo.update({'enabled': enabled}) -%}
    {%- endif -%}
{% endmacro %}
