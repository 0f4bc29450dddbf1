{{ config(materialized='ephemeral') }}

{#-
    The UOWs in flight at the end of the capture cycle now running: each UOW that changed a
    registered table and has neither committed nor rolled back, with its first change (SEQ) and
    the source of that change; with none in flight, one row with no UOW whose SEQ is the highest
    position read. The lowest SEQ is where reading restarts. From the UOWs in flight when the
    last completed cycle ended (lakerep_in_flight_at_last_cycle; none on a cold start) and the
    records the cycle reads. capture_cycles keeps them, in the cycle's commit record; the
    warm_start view shows those of the latest completed cycle.
-#}

{%- set window = lakerep_capture_window() %}
{#- A UOW goes with the source it first changed; one whose source has no row in the window (no
    longer registered) with the window's first source. #}
{%- set window_sources = window.sources.keys() | sort | list %}
{%- set first_source = window.sources[window_sources[0]] if window_sources else none %}
{%- set source_literals = [] %}
{%- for source in window_sources %}
    {%- do source_literals.append(lakerep_string_literal(source) | trim) %}
{%- endfor %}
{%- set in_window = "concat(source_owner, '.', source_table) in (" ~ source_literals | join(', ') ~ ")" %}

with

log_records as (
    select * from {{ ref('stg_source_log') }}
    where {{ lakerep_in_session_read(window) }}
),

previously_open as (
    -- A cold start keeps none.
    select * from ({{ lakerep_in_flight_at_last_cycle() }}) as at_last_cycle
    where {{ 'false' if window.cold_start else 'true' }}
),

newly_changed as (
    select
        uow_id,
        log_position as seq,
        auth_token,
        auth_id,
        log_timestamp as uow_time,
        source_owner,
        source_table
    from log_records
    where is_registered_table
),

candidates as (
    -- Each UOW's first change: from the UOWs open at the last cycle's end and the records read.
    select
        uow_id,
        min(seq) as seq,
        min_by(auth_token, seq) as auth_token,
        min_by(auth_id, seq) as auth_id,
        min(uow_time) as uow_time,
        min_by(named_struct('source_owner', source_owner, 'source_table', source_table), seq) as first_changed
    from (
        select * from previously_open
        union all
        select * from newly_changed
    ) as either_side
    group by uow_id
),

ended as (
    select distinct uow_id from log_records
    where record_type in ('C', 'R')
),

in_flight as (
    select
        candidates.uow_id,
        candidates.seq,
        candidates.auth_token,
        candidates.auth_id,
        candidates.uow_time,
        candidates.first_changed.source_owner,
        candidates.first_changed.source_table
    from candidates
    left anti join ended on candidates.uow_id = ended.uow_id
),

highest_read as (
    select
        greatest(
            coalesce(max(log_position), '00000000000000000000'),
            {{ lakerep_string_literal(window.previous_resync_position) }}
        ) as seq
    from log_records
),

in_flight_rows as (
    select
        seq as SEQ,
        uow_id as UOWID,
        auth_token as AUTHTKN,
        auth_id as AUTHID,
        uow_time as UOWTIME,
        {%- if first_source is none %}
            source_owner,
            source_table
        {%- else %}
            if({{ in_window }}, source_owner, {{ lakerep_string_literal(first_source.source_owner) }}) as source_owner,
            if({{ in_window }}, source_table, {{ lakerep_string_literal(first_source.source_table) }}) as source_table
        {%- endif %}
    from in_flight
    union all
    select
        highest_read.seq as SEQ,
        cast(null as string) as UOWID,
        cast(null as string) as AUTHTKN,
        cast(null as string) as AUTHID,
        cast(null as timestamp) as UOWTIME,
        cast(null as string) as source_owner,
        cast(null as string) as source_table
    from highest_read
    where not exists (select 1 from in_flight)
)

select * from in_flight_rows
