{#-
    Body of one member's target model (SPEC §5): the rows its change model says to insert,
    update or load (append, for a CCD target), merged on the stub's unique_key when the set's
    Apply status for the cycle is APPLIED; otherwise it writes nothing. The same MERGE deletes
    the keys to delete (lakerep_target_merge_sql, config lakerep_member_target), so a cycle
    changes a target in one commit. Before it, for a refresh, the pre-hook
    (_lakerep_target_prepare) empties the target. Both repeat safely when a cut-off cycle runs
    again.
    Argument: target_table — the member's target.
-#}
{% macro lakerep_target_model(target_table) %}
{{ config(
    pre_hook="{{ _lakerep_target_prepare('" ~ target_table ~ "') }}",
    lakerep_writes_if='member_changed:' ~ target_table,
    lakerep_member_target=target_table,
) }}
{%- set member = lakerep_member(target_table) -%}
{%- set changes = ref('apply_changes__' ~ target_table) -%}

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
    {{ 'true' if lakerep_member_applies(target_table) else 'false' }}
    and apply_cycle = {{ lakerep_current_apply_cycle() }}
    and row_action in ('insert', 'update', 'load', 'append')
{% endmacro %}


{#- The target's pre-hook: on an APPLIED cycle that refreshes the member, empty the target. -#}
{% macro _lakerep_target_prepare(target_table) %}
    {%- if execute and is_incremental() and lakerep_member_applies(target_table)
        and lakerep_member_plan(target_table).action == 'REFRESH' -%}
        delete from {{ this }}
    {%- endif -%}
{% endmacro %}
