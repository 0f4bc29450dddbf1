{#-
    The rows of a query, run once per dbt invocation: a model of the cycle that asks again gets
    the same rows without a statement (issue 21: a query costs a planning round trip, and a cycle
    has dozens of models asking the same). Use it only for what no model of the invocation writes
    after the first ask: every caller runs downstream (in the DAG) of the tables it reads. The
    memo lives in the invocation's graph (one dict for all of its nodes), keyed by the SQL text
    and cleared when the invocation_id changes, so an invocation that reuses a parsed manifest
    reads again. Argument: sql — the query.
-#}
{% macro lakerep_rows_once(sql) %}
    {% set memo = graph.setdefault('lakerep_rows_once', {}) %}
    {% if memo.get('invocation_id') != invocation_id %}
        {% do memo.clear() %}
        {% do memo.update({'invocation_id': invocation_id}) %}
    {% endif %}
    {% if sql not in memo %}
        {% do memo.update({sql: run_query(sql).rows}) %}
    {% endif %}
    {{ return(memo[sql]) }}
{% endmacro %}
