{#-
    Record-level validation of a landed log record (SPEC §2.1): the first failing check, as a
    reason code, or null when the record is valid on its own. Checks that need other records
    (duplicate position, commit of an unknown UOW) are in int_log_records_judged itself.
    The order of the WHEN branches is the precedence of the reasons. Reads the landed columns and
    before_values, after_values, registered_types, registered_keys and registered_stop:
    a change of a table at or after an unsafe change of its columns is held (schema_change_unsafe).
-#}
{% macro lakerep_record_quarantine_reason() %}
    case
        when record_type is null or record_type not in ('I', 'U', 'D', 'C', 'R')
            then 'unknown_record_type'
        when not {{ lakerep_is_position('log_position') }}
            then 'malformed_log_position'
        when coalesce(trim(uow_id), '') = ''
            then 'missing_uow_id'
        when {{ lakerep_parse_log_timestamp('log_timestamp') }} is null
            then 'malformed_log_timestamp'
        when record_type in ('I', 'U', 'D')
            and (coalesce(trim(source_owner), '') = '' or coalesce(trim(source_table), '') = '')
            then 'dml_without_table'
        when not {{ lakerep_is_json_object_or_null('before_image') }}
            or not {{ lakerep_is_json_object_or_null('after_image') }}
            then 'image_not_json_object'
        when (record_type in ('I', 'U') and after_image is null)
            or (record_type = 'D' and before_image is null)
            then 'missing_image'
        when record_type in ('I', 'U', 'D') and upper(log_position) >= registered_stop
            then 'schema_change_unsafe'
        when record_type in ('I', 'U', 'D')
            then coalesce(
                {{ lakerep_registered_image_reason('before_values') }},
                {{ lakerep_registered_image_reason('after_values') }}
            )
    end
{% endmacro %}
