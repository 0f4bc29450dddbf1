{#-
    SQL of the latest Apply cycle's number, for a view: it reads apply_plan whenever it is queried.
    The models of the cycle use the literal lakerep_current_apply_cycle().
-#}
{% macro lakerep_latest_apply_cycle() -%}
    (select max(apply_cycle) from {{ ref('apply_plan') }})
{%- endmacro %}
