{#-
    The current Apply cycle's plan for one member (the latest row of apply_plan), as literals:
    a dict with apply_cycle, action (MIRROR, REFRESH, EXTERNAL_REFRESH, GAP_ERROR, WAIT),
    set_action (APPLY, WAIT, GAP), fetch_after (changes committed after it are fetched),
    to_synchpoint, snapshot_id, refresh_start, refresh_end and mitigate_through (changes
    committed up to it pass the error-mitigation filter). Unit tests override this macro.
-#}
{% macro lakerep_member_plan(target_table) %}
    {%- set plan = {
        'apply_cycle': 0, 'action': 'WAIT', 'set_action': 'WAIT',
        'fetch_after': lakerep_lowest_position(), 'to_synchpoint': lakerep_lowest_position(),
        'snapshot_id': none, 'refresh_start': none, 'refresh_end': none, 'mitigate_through': none,
    } -%}
    {%- for row in lakerep_current_plan_rows() if row.target_table == target_table -%}
        {%- for name in plan -%}
            {%- do plan.update({name: row[name]}) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(plan) }}
{% endmacro %}
