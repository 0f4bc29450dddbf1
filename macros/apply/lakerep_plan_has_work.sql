{#-
    Whether a member's plan (a row of apply_cycle_plan) may change its target this cycle: it
    loads a snapshot or a refresh window (REFRESH, EXTERNAL_REFRESH), or it mirrors in a set that
    applies and its source has a change committed after what the member fetched (the register's
    CD_NEW_SYNCHPOINT, the newest commit Capture has captured of it). WAIT and GAP_ERROR fetch
    nothing, nor does a member of a set that does not apply.
-#}
{% macro lakerep_plan_has_work(plan) %}
    {%- if plan.action in ['REFRESH', 'EXTERNAL_REFRESH'] -%}
        {{ return(true) }}
    {%- endif -%}
    {{ return(
        plan.action == 'MIRROR' and plan.set_action == 'APPLY'
        and plan.cd_new_synchpoint is not none and plan.cd_new_synchpoint > plan.fetch_after
        and plan.fetch_after < plan.to_synchpoint
    ) }}
{% endmacro %}
