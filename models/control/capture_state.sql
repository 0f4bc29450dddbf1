{{ config(materialized='view') }}

{#-
    The state of every CDC session (SPEC §3): one row per (session, source) with the restart
    token pair its latest completed capture cycle committed, in the same cycle as the data.
-#}

{#- The state is read by name when a cycle starts; this ref orders the view after its table. #}
-- depends_on: {{ ref('capture_cycles') }}

with

state as (
    {{ lakerep_capture_state() }}
)

select * from state
