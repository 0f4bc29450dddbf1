{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The Apply status of each subscription set in the latest Apply cycle (SPEC §5), as
    apply_changes decided it before any target was written: GAP (a member needs a refresh its
    source's DISABLE_REFRESH forbids), WAITING (a member waits for a source snapshot), STOPPED (an
    operational error outside a refresh window, in a set whose policy is stop), else APPLIED.
    Targets are written only in an APPLIED cycle. Until apply_cycles commits the cycle, this is
    the cycle that is running.
-#}

select
    apply_cycle,
    apply_qual,
    set_name,
    max(set_status) as status,
    sum(operational_errors) as operational_errors
from {{ ref('apply_changes') }}
where row_action = 'plan'
group by apply_cycle, apply_qual, set_name
