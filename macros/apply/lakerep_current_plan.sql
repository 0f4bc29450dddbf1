{#- SQL of the latest Apply cycle's plan, for a view: apply_plan's rows of its highest cycle. -#}
{% macro lakerep_current_plan() %}
    select * from {{ ref('apply_plan') }}
    where apply_cycle = {{ lakerep_latest_apply_cycle() }}
{% endmacro %}
