{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The trace (IBMSNAP_TRACE, SPEC §3): every event of Capture (capture_trace) and of Apply and
    pruning (apply_trace), one row each.
-#}

select * from {{ ref('capture_trace') }}
union all
select * from {{ ref('apply_trace') }}
