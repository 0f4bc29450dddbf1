{#-
    SQL of the rows of the landed snapshots of one registered table that the SQL predicate picks
    (over int_snapshot_rows_valid), shaped as CCD rows: IBMSNAP_OPERATION 'I', IBMSNAP_COMMITSEQ and
    IBMSNAP_INTENTSEQ the position at which the unload started, IBMSNAP_LOGMARKER the landing
    time, and the typed user columns. The row without an image that stands for an empty table's
    unload is no row. A snapshot landed valid more than once (a landing repeated) gives the rows
    of its latest landing among those the predicate picks, once: validation judges each landing
    on its own, and the same unload's rows twice would load or compare every row twice. Shared
    by the comparison of a target with a snapshot (lakerep_target_diff_rows). Arguments: registration; predicate — SQL over int_snapshot_rows_valid's columns.
-#}
{% macro lakerep_snapshot_image_rows(registration, predicate) %}
    select
        unload_start_position as IBMSNAP_COMMITSEQ,
        unload_start_position as IBMSNAP_INTENTSEQ,
        'I' as IBMSNAP_OPERATION,
        landed_at as IBMSNAP_LOGMARKER,
        {%- for column in registration.columns %}
            {{ lakerep_typed_field('snapshot_row', column) }} as `{{ column.name }}`{{ ',' if not loop.last }}
        {%- endfor %}
    from (
        select
            *,
            {{ lakerep_parse_image('row_image', registration) }} as snapshot_row
        from (
            select
                *,
                max(landing_batch) over (partition by snapshot_id) as latest_landing
            from {{ ref('int_snapshot_rows_valid') }}
            where
                {{ predicate }}
                and source_owner = {{ lakerep_string_literal(registration.source_owner) }}
                and source_table = {{ lakerep_string_literal(registration.source_table) }}
        ) as landings
        where landing_batch = latest_landing and row_image is not null
    ) as parsed
{% endmacro %}
