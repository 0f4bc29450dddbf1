{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The state of every CDC session (SPEC §3): one row per (session, source) with the restart
    token pair its latest completed capture cycle committed, in the same commit as the data
    (capture_cycles' source rows).
-#}

-- depends_on: {{ ref('capture_cycles') }}

with

state as (
    {{ lakerep_capture_state() }}
)

select * from state
