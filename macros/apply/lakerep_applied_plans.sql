{#-
    SQL of the plan rows that took effect: a member's row of a cycle whose set committed an
    APPLIED trail row, with an action that writes the target (MIRROR, REFRESH, EXTERNAL_REFRESH).
    A member's state is its latest such row. Arguments: plans, trail — relations or CTE names
    with apply_plan's and apply_trail's columns.
-#}
{% macro lakerep_applied_plans(plans, trail) %}
    select plans.*
    from {{ plans }} as plans
    inner join {{ trail }} as trail
        on
            plans.apply_cycle = trail.apply_cycle
            and plans.apply_qual = trail.apply_qual
            and plans.set_name = trail.set_name
    where
        trail.status = 'APPLIED'
        and plans.action in ('MIRROR', 'REFRESH', 'EXTERNAL_REFRESH')
{% endmacro %}
