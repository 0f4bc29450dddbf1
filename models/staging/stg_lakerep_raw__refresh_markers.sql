{{ config(materialized='view') }}

{#-
    The refresh commands (SPEC §5) as Apply reads them: the landing table refresh_markers, which
    `lakerep refresh` and `lakerep mark-external-refresh` write (macro lakerep_mark_refresh) after
    their checks. Apply's models read markers only through this view (lakerep_pending_markers).
-#}

select
    marker_id,
    kind,
    apply_qual,
    set_name,
    target_table,
    refresh_start,
    refresh_end,
    marked_at,
    marked_by
from {{ source('lakerep_raw', 'refresh_markers') }}
