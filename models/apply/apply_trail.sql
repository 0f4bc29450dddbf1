{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The Apply trail (SPEC §5): one row per subscription set per committed Apply cycle, the set
    rows of apply_cycles, the cycle's commit record: rows fetched, inserted, updated, deleted,
    loaded, reworked by the mitigation filter, exceptions, status and the synchpoint reached.
-#}

select
    apply_cycle,
    capture_cycle,
    apply_qual,
    set_name,
    status,
    rows_fetched,
    rows_inserted,
    rows_updated,
    rows_deleted,
    rows_loaded,
    rows_reworked,
    exceptions,
    synchpoint,
    synchtime,
    description,
    completed_at
from {{ ref('apply_cycles') }}
where record_kind = 'set'
