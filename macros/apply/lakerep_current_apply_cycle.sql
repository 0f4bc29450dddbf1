{#-
    The current Apply cycle's number, as a literal for the models that run in the cycle after
    apply_plan (0 before apply_plan has planned a cycle, and at parse time): read with the
    member plans, once per invocation (lakerep_current_plan_rows), so no statement of the cycle
    reads apply_plan again to find it. A member's change model holds the rows of the cycle that
    last wrote it, which is an older one when the member had nothing to do since.
-#}
{% macro lakerep_current_apply_cycle() -%}
    {{ lakerep_current_plan_rows() | map(attribute='apply_cycle') | max | default(0, true) }}
{%- endmacro %}
