{#-
    Body of the internal consistent change data (CCD) model of one registered table (SPEC §3):
    the table's committed changes in commit order. Condensed (registered ccd_condensed): one row
    per key, its latest change (a delete stays as a 'D' row); merged on the key, and a change
    replaces the stored one only if it is later by commit position, then position in its UOW
    (lakerep_update_if_later: the MERGE's condition, so the stored table is read once per cycle,
    by the MERGE), so re-reading a window changes nothing.
    Non-condensed: every change, merged on (INTENTSEQ, OPERATION), reading the stored rows at or
    above the cycle's lowest position only (_lakerep_merge_floor). The stub sets unique_key.
    Complete (registered ccd_complete): the rows of a source snapshot landed in the window come
    in too, as inserts at the unload start position; every change committed after it is later,
    so the snapshot row gives way to it whatever moment of the unload read the row. An unload
    landed twice in one window counts once: one row per key at its start.
    Arguments: source_owner, source_table — the registered table.
-#}
{% macro lakerep_ccd_model(source_owner, source_table) %}
{%- set registration = lakerep_registration(source_owner, source_table) -%}
{{ config(
    materialized='incremental',
    incremental_strategy='merge',
    lakerep_merge_floor='IBMSNAP_INTENTSEQ',
    lakerep_update_if_later=['IBMSNAP_COMMITSEQ', 'IBMSNAP_INTENTSEQ'] if registration.ccd_condensed else none,
    on_schema_change='fail',
    lakerep_writes_if='table_changed:' ~ source_owner ~ '.' ~ source_table,
) }}
{%- set window = lakerep_capture_window() -%}
{%- set cd_relation = ref(lakerep_cd_model_name(source_owner, source_table)) -%}
{%- set keys = registration.key_columns -%}

with

committed_changes as (
    {{ lakerep_committed_changes(cd_relation, registration, window) }}
    {%- if registration.ccd_complete %}
        union all
        {{ _lakerep_snapshot_rows(registration, window) }}
    {%- endif %}
),

{% if registration.ccd_condensed %}
ranked as (
    select
        *,
        row_number() over (
            partition by {% for key in keys %}`{{ key }}`{{ ', ' if not loop.last }}{% endfor %}
            order by IBMSNAP_COMMITSEQ desc, IBMSNAP_INTENTSEQ desc, IBMSNAP_OPERATION desc
        ) as change_rank
    from committed_changes
),

latest as (
    select
        IBMSNAP_COMMITSEQ,
        IBMSNAP_INTENTSEQ,
        IBMSNAP_OPERATION,
        IBMSNAP_LOGMARKER,
        {%- for column in registration.columns %}
            `{{ column.name }}`{{ ',' if not loop.last }}
        {%- endfor %}
    from ranked
    where change_rank = 1
),

ccd_rows as (
    select * from latest
)
{% elif registration.ccd_complete %}
{#- The same unload landed twice in one window (a retried landing): one row per key at its start. #}
ranked_copies as (
    select
        *,
        row_number() over (
            partition by IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION,
                {% for key in keys %}`{{ key }}`{{ ', ' if not loop.last }}{% endfor %}
            order by IBMSNAP_LOGMARKER desc
        ) as copy_rank
    from committed_changes
),

ccd_rows as (
    select
        IBMSNAP_COMMITSEQ,
        IBMSNAP_INTENTSEQ,
        IBMSNAP_OPERATION,
        IBMSNAP_LOGMARKER,
        {%- for column in registration.columns %}
            `{{ column.name }}`{{ ',' if not loop.last }}
        {%- endfor %}
    from ranked_copies
    where copy_rank = 1
)
{% else %}
ccd_rows as (
    select * from committed_changes
)
{% endif %}

select * from ccd_rows
{% endmacro %}


{#-
    SQL of the rows of the snapshots of one registered table landed in the capture window, shaped
    as CCD rows: IBMSNAP_OPERATION 'I', IBMSNAP_COMMITSEQ and IBMSNAP_INTENTSEQ the position at
    which the unload started, IBMSNAP_LOGMARKER the landing time, and the typed user columns.
    Arguments: registration; window — lakerep_capture_window().
-#}
{% macro _lakerep_snapshot_rows(registration, window) %}
    {{ lakerep_snapshot_image_rows(registration, lakerep_in_capture_window(window)) }}
{% endmacro %}

