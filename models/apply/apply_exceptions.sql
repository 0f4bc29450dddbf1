{{
    config(
        materialized='incremental',
        incremental_strategy='merge',
        unique_key=['apply_qual', 'set_name', 'target_table', 'IBMSNAP_INTENTSEQ', 'IBMSNAP_OPERATION'],
        on_schema_change='fail',
        lakerep_writes_if='operational_errors',
    )
}}

{#-
    The apply exceptions table (SPEC §5): one row per operational error met outside a refresh
    window (an insert of an existing key, an update or delete of a missing one), with the
    change itself. A stopped set meets the same change again every cycle until the target is
    refreshed; the row is kept once, with the last cycle that met it. A cycle without an
    operational error (apply_set_status counts them) writes nothing.
-#}

-- depends_on: {{ ref('apply_set_status') }}

with

plan as (
    {{ lakerep_cycle_plan() }}
),

errors as (
    select * from (
        {{ lakerep_member_change_rows([['operational_error', 'string'], ['first_change', 'string']]) }}
    ) as member_changes
    where operational_error is not null
),

exception_rows as (
    select
        plan.apply_cycle,
        plan.apply_qual,
        plan.set_name,
        plan.target_table,
        plan.source_owner,
        plan.source_table,
        errors.operational_error,
        get_json_object(errors.first_change, '$.IBMSNAP_COMMITSEQ') as IBMSNAP_COMMITSEQ,
        get_json_object(errors.first_change, '$.IBMSNAP_INTENTSEQ') as IBMSNAP_INTENTSEQ,
        get_json_object(errors.first_change, '$.IBMSNAP_OPERATION') as IBMSNAP_OPERATION,
        errors.first_change as change_image,
        plan.on_operational_error,
        current_timestamp() as recorded_at
    from errors
    inner join plan on errors.target_table = plan.target_table
)

select * from exception_rows
