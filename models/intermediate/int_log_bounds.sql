{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The source log's bounds as landed now (SPEC §4), one row: its oldest and its newest well-formed
    position, normalized, over every landed record (valid or not: a record held back still tells
    where the log is) and every valid record judged: a prune of the UOWs every member has applied
    keeps the judged log's oldest record and its newest batch (lakerep_prune_plan), so it moves
    neither bound. The restart decision (restart_candidates) checks the tokens it may start from
    against them.
-#}

with

log_positions as (
    {{ lakerep_landed_positions(ref('stg_lakerep_raw__source_log'), ref('int_log_records_judged')) }}
)

select
    min(position) as log_oldest_position,
    max(position) as log_end_position
from log_positions
