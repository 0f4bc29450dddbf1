{#-
    The subscription members (SPEC §2.4): a list of dicts with apply_qual, set_name,
    on_operational_error, source_owner, source_table, target_table, target_structure
    (user_copy, point_in_time or ccd), structure_code and the source's registration. The
    declaration is subscriptions.yml; `lakerep scaffold` turns it into
    lakerep_member_declarations() (macros/generated/).
-#}
{% macro lakerep_members() %}
    {%- set members = [] -%}
    {%- for declared in lakerep_member_declarations() -%}
        {%- set member = declared.copy() -%}
        {%- do member.update({'registration': lakerep_registration(declared.source_owner, declared.source_table)}) -%}
        {%- do members.append(member) -%}
    {%- endfor -%}
    {{ return(members) }}
{% endmacro %}


{#- One member by its target table; a compile error when no member writes that table. -#}
{% macro lakerep_member(target_table) %}
    {%- for member in lakerep_members() -%}
        {%- if member.target_table == target_table -%}
            {{ return(member) }}
        {%- endif -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error('no member of subscriptions.yml has the target ' ~ target_table) }}
{% endmacro %}


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


{#-
    apply_plan's rows of the current cycle, read once per invocation: every model that asks runs
    after apply_plan. Empty at parse time.
-#}
{% macro lakerep_current_plan_rows() %}
    {#- Rendered at parse time too: its ref() makes the caller depend on apply_plan. -#}
    {%- set sql = lakerep_current_plan() -%}
    {{ return(lakerep_rows_once(sql) if execute else []) }}
{% endmacro %}


{#- The Apply status of one set in the current cycle (APPLIED, STOPPED, GAP or WAITING). -#}
{% macro lakerep_set_status(apply_qual, set_name) %}
    {%- for row in lakerep_set_statuses() if row.apply_qual == apply_qual and row.set_name == set_name -%}
        {{ return(row.status) }}
    {%- endfor -%}
    {{ return('WAITING') }}
{% endmacro %}


{#-
    Every set's row of apply_set_status (apply_qual, set_name, status, operational_errors), read
    once per invocation: its readers run after it. Empty at parse time.
-#}
{% macro lakerep_set_statuses() %}
    {%- set relation = ref('apply_set_status') -%}
    {{ return(lakerep_rows_once('select * from ' ~ relation) if execute else []) }}
{% endmacro %}
