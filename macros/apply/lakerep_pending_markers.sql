{#-
    SQL of each member's pending refresh marker (target_table, marker_id, kind, refresh_start,
    refresh_end): its latest 'refresh' or 'external' marker, unless an applied plan has consumed
    it. A newer marker supersedes every older one, consumed or not: the target holds what the
    latest refresh loaded, so an older window no longer describes it.
    Argument: applied — a relation or CTE name of the plans that took effect (apply_plan's rows of APPLIED sets with an action that writes the target).
-#}
{% macro lakerep_pending_markers(applied) %}
    select latest.*
    from (
        select
            markers.target_table,
            max_by(markers.marker_id, struct(markers.marked_at, markers.marker_id)) as marker_id,
            max_by(markers.kind, struct(markers.marked_at, markers.marker_id)) as kind,
            max_by(markers.refresh_start, struct(markers.marked_at, markers.marker_id)) as refresh_start,
            max_by(markers.refresh_end, struct(markers.marked_at, markers.marker_id)) as refresh_end
        from {{ ref('stg_lakerep_raw__refresh_markers') }} as markers
        where markers.kind in ('refresh', 'external')
        group by markers.target_table
    ) as latest
    where latest.marker_id not in (
        select consumed.marker_id from {{ applied }} as consumed
        where consumed.marker_id is not null
    )
{% endmacro %}
