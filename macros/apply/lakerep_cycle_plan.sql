{#- SQL of the plan of the cycle now running, for its models after apply_plan: one read of it. -#}
{% macro lakerep_cycle_plan() %}
    select * from {{ ref('apply_plan') }}
    where apply_cycle = {{ lakerep_current_apply_cycle() }}
{% endmacro %}
