{#-
    Validation of an unloaded source row (SPEC §2.5): the first failing check, as a reason code,
    or null when the row is valid on its own. A snapshot is all or nothing: a partial unload
    would refresh a target without the rows held back, so int_snapshot_rows_judged holds every
    row of a snapshot with a quarantined row as well ('snapshot_incomplete'). A row without an
    image is the whole unload of an empty table, valid only as the one row of its snapshot's
    landing. Reads the landed columns, rows_in_landing, row_values, registered_types and
    registered_keys.
-#}
{% macro lakerep_snapshot_quarantine_reason() %}
    case
        when coalesce(trim(snapshot_id), '') = ''
            then 'missing_snapshot_id'
        when not {{ lakerep_is_position('unload_start_position') }}
            or not {{ lakerep_is_position('unload_end_position') }}
            then 'malformed_unload_position'
        when upper(unload_start_position) > upper(unload_end_position)
            then 'unload_start_after_end'
        when coalesce(trim(source_owner), '') = '' or coalesce(trim(source_table), '') = ''
            then 'snapshot_without_table'
        when (row_image is null and rows_in_landing > 1) or not {{ lakerep_is_json_object_or_null('row_image') }}
            then 'image_not_json_object'
        else {{ lakerep_registered_image_reason('row_values') }}
    end
{% endmacro %}
