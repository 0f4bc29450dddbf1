{#-
    Body of one member's target model (SPEC §5): merges the rows its change model says to
    insert, update or load (append, for a CCD target) on the stub's unique_key, when the set's
    Apply status for the cycle is APPLIED; otherwise it writes nothing. Before the merge, the
    pre-hook (_lakerep_target_prepare) empties the target for a refresh and deletes the keys to
    delete. Both steps repeat safely when a cut-off cycle runs again.
    Argument: target_table — the member's target.
-#}
{% macro lakerep_target_model(target_table) %}
{{ config(
    pre_hook="{{ _lakerep_target_prepare('" ~ target_table ~ "') }}",
    lakerep_writes_if='member_changed:' ~ target_table,
) }}
{%- set member = lakerep_member(target_table) -%}
{%- set changes = ref('apply_changes__' ~ target_table) -%}
{%- set applied = _lakerep_set_status(member.apply_qual, member.set_name) == 'APPLIED' -%}

-- depends_on: {{ ref('apply_plan') }}

select
    {%- if member.target_structure == 'ccd' %}
        IBMSNAP_COMMITSEQ,
        IBMSNAP_INTENTSEQ,
        IBMSNAP_OPERATION,
        IBMSNAP_LOGMARKER,
    {%- endif %}
    {%- for column in member.registration.columns %}
        `{{ column.name }}`{{ ',' if not loop.last or member.target_structure == 'point_in_time' }}
    {%- endfor %}
    {%- if member.target_structure == 'point_in_time' %}
        IBMSNAP_COMMITSEQ,
        IBMSNAP_LOGMARKER
    {%- endif %}
from {{ changes }}
where
    {{ 'true' if applied else 'false' }}
    and apply_cycle = {{ lakerep_current_apply_cycle() }}
    and row_action in ('insert', 'update', 'load', 'append')
{% endmacro %}


{#- The Apply status of one set in the current cycle (APPLIED, STOPPED, GAP or WAITING). -#}
{% macro _lakerep_set_status(apply_qual, set_name) %}
    {%- for row in lakerep_set_statuses() if row.apply_qual == apply_qual and row.set_name == set_name -%}
        {{ return(row.status) }}
    {%- endfor -%}
    {{ return('WAITING') }}
{% endmacro %}


{#- The target's pre-hook: on an APPLIED cycle, empty it for a refresh, or delete the keys to delete. -#}
{% macro _lakerep_target_prepare(target_table) %}
    {%- set member = lakerep_member(target_table) -%}
    {%- if not execute or not is_incremental()
        or _lakerep_set_status(member.apply_qual, member.set_name) != 'APPLIED' -%}
        {{ return('') }}
    {%- endif -%}
    {%- set plan = lakerep_member_plan(target_table) -%}
    {%- if plan.action == 'REFRESH' -%}
        {{ return('delete from ' ~ this) }}
    {%- elif member.target_structure == 'ccd' -%}
        {{ return('') }}
    {%- endif -%}
    {%- set keys = member.registration.key_columns -%}
    merge into {{ this }} as held
    using (
        select {% for key in keys %}`{{ key }}`{{ ', ' if not loop.last }}{% endfor %}
        from {{ ref('apply_changes__' ~ target_table) }}
        where row_action = 'delete' and apply_cycle = {{ lakerep_current_apply_cycle() }}
    ) as gone
    on {% for key in keys %}held.`{{ key }}` <=> gone.`{{ key }}`{{ ' and ' if not loop.last }}{% endfor %}
    when matched then delete
{% endmacro %}
