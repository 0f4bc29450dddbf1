{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The plan every member ran in every committed Apply cycle (SPEC §5): the member rows of
    apply_cycles, with their set's status for the cycle (set_status). A member's state is its
    latest row of an APPLIED set with an action that writes the target (MIRROR, REFRESH,
    EXTERNAL_REFRESH): its SYNCHPOINT is that row's to_synchpoint (pruning_control).
-#}

select
    apply_cycle,
    capture_cycle,
    planned_at,
    apply_qual,
    set_name,
    on_operational_error,
    source_owner,
    source_table,
    target_table,
    target_structure,
    action,
    reason,
    from_synchpoint,
    to_synchpoint,
    to_synchtime,
    fetch_after,
    snapshot_id,
    refresh_start,
    refresh_end,
    mitigate_through,
    marker_id,
    set_action,
    status as set_status
from {{ ref('apply_cycles') }}
where record_kind = 'member'
