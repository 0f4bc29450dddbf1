{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
    )
}}

{#- The trace table (IBMSNAP_TRACE): one row per event; here, one CAPTURE row per cycle. -#}

with

new_cycles as (
    select * from {{ ref('capture_cycles') }}
    {% if is_incremental() %}
        where cycle_number > (select coalesce(max(traced.CYCLE), 0) from {{ this }} as traced)
    {% endif %}
),

trace_rows as (
    select
        'CAPTURE' as OPERATION,
        completed_at as TRACE_TIME,
        concat(
            'ASN0104I lakerep capture cycle ', cycle_number,
            ' read landing batches ', after_batch + 1, '-', up_to_batch,
            ': ', row_changes, ' row changes, ', uows_committed, ' UOWs committed; synchpoint ',
            coalesce(synchpoint, 'none'), ', restart position ', coalesce(resync_position, 'none')
        ) as DESCRIPTION,
        cycle_number as CYCLE
    from new_cycles
)

select * from trace_rows
