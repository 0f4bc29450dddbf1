{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The source log's bounds as landed now (SPEC §4), one row: its oldest and its newest well-formed
    position, normalized, over every landed record (valid or not: a record held back still tells
    where the log is) and every valid record judged: a prune deletes landed records of UOWs every
    member has applied, never their judged copies, so it moves neither bound (a warm restart point
    among them is still in the log). The restart decision (restart_candidates) checks the tokens
    it may start from against them.
-#}

with

log_positions as (
    {{ lakerep_landed_positions(ref('stg_lakerep_raw__source_log'), ref('int_log_records_judged')) }}
)

select
    min(position) as log_oldest_position,
    max(position) as log_end_position
from log_positions
