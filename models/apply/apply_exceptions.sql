{{ config(materialized='incremental', lakerep_stats_columns=['apply_cycle', 'target_table', 'IBMSNAP_INTENTSEQ']) }}

{#-
    The apply exceptions table (SPEC §5): one row per operational error met outside a refresh
    window (an insert of an existing key, an update or delete of a missing one), with the
    change itself. A stopped set meets the same change again every cycle until the target is
    refreshed; the row is kept once, with the last cycle that met it. A cycle without an
    operational error (apply_changes' plan rows count them) writes nothing.
-#}

{%- set errors = [] %}
{%- for plan in lakerep_current_plan_rows() %}
    {%- set cycle = lakerep_member_cycle(plan.target_table) %}
    {%- if cycle is not none and cycle.operational_errors > 0 %}
        {%- do errors.append(cycle) %}
    {%- endif %}
{%- endfor %}
{%- if errors %}
    {%- do lakerep_write_as(
        'merge', on=['apply_qual', 'set_name', 'target_table', 'IBMSNAP_INTENTSEQ', 'IBMSNAP_OPERATION'],
        later_by=['apply_cycle'],
    ) %}
{%- else %}
    {%- do lakerep_write_as('skip', reason='no operational error this cycle') %}
{%- endif %}

with

plans as (
    select * from {{ ref('apply_changes') }}
    where row_action = 'plan'
),

errors as (
    select * from {{ ref('apply_changes') }}
    where row_action != 'plan' and operational_error is not null
),

exception_rows as (
    select
        plans.apply_cycle,
        plans.apply_qual,
        plans.set_name,
        plans.target_table,
        plans.source_owner,
        plans.source_table,
        errors.operational_error,
        get_json_object(errors.first_change, '$.IBMSNAP_COMMITSEQ') as IBMSNAP_COMMITSEQ,
        get_json_object(errors.first_change, '$.IBMSNAP_INTENTSEQ') as IBMSNAP_INTENTSEQ,
        get_json_object(errors.first_change, '$.IBMSNAP_OPERATION') as IBMSNAP_OPERATION,
        errors.first_change as change_image,
        plans.on_operational_error,
        current_timestamp() as recorded_at
    from errors
    inner join plans on errors.target_table = plans.target_table and errors.apply_cycle = plans.apply_cycle
)

select * from exception_rows
