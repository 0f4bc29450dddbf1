{#-
    The row of lakerep_cycle_opener_sql as this invocation found it when it first asked, before
    any of its own writes, as a dict, with the facts it was computed from (lakerep_cycle_facts:
    the judging models take their own highest batch and cycle from them): the models that decide
    whether to judge or to decide (validation, restart_decisions) must see the lake as the
    invocation began, and the SQL's text changes when a first build creates a table it reads, so
    the memo is keyed by the invocation alone. Two small queries.
-#}
{% macro lakerep_cycle_opener() %}
    {%- set memo = graph.setdefault('lakerep_cycle_opener', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- set facts = lakerep_cycle_facts() -%}
        {%- set opener = _lakerep_row_as_dict(run_query(lakerep_cycle_opener_sql(facts)).rows[0]) -%}
        {%- do opener.update({'facts': facts}) -%}
        {%- do memo.update({'invocation_id': invocation_id, 'row': opener}) -%}
    {%- endif -%}
    {{ return(memo.row) }}
{% endmacro %}


{% macro _lakerep_row_as_dict(row) %}
    {%- set values = {} -%}
    {%- for name in row.keys() -%}
        {%- do values.update({name: row[name]}) -%}
    {%- endfor -%}
    {{ return(values) }}
{% endmacro %}
