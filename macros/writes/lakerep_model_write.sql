{#-
    The write the model now materializing asked for with lakerep_write_as while it compiled; an
    append when it asked for none.
-#}
{% macro lakerep_model_write() %}
    {%- set memo = graph.get('lakerep_writes', {}) -%}
    {%- if memo.get('invocation_id') == invocation_id and model.unique_id in memo -%}
        {{ return(memo[model.unique_id]) }}
    {%- endif -%}
    {{ return({'mode': 'append', 'txn': none}) }}
{% endmacro %}
