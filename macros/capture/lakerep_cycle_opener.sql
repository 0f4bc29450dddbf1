{#-
    The row of lakerep_cycle_opener_sql as this invocation found it when it first asked, before
    any of its own writes, as a dict, with the facts it was computed from (lakerep_cycle_facts_sql:
    the judging models take their own highest batch and cycle from them): the models that decide
    whether to judge or to decide (validation, restart_decisions) must see the lake as the
    invocation began, and the SQL's text changes when a first build creates a table it reads, so
    the memo is keyed by the invocation alone. Two small queries.
-#}
{% macro lakerep_cycle_opener() %}
    {%- set memo = graph.setdefault('lakerep_cycle_opener', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- set facts = {} -%}
        {%- for row in run_query(lakerep_cycle_facts_sql()).rows -%}
            {%- do facts.update({row.fact: row.value}) -%}
            {%- do facts.update({row.second_fact: row.second_value} if row.second_fact else {}) -%}
        {%- endfor -%}
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
