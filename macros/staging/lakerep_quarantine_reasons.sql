{#-
    Record-level validation of a landed log record (SPEC §2.1): the first failing check, as a
    reason code, or null when the record is valid on its own. Checks that need other records
    (duplicate position, commit of an unknown UOW) are in stg_source_log_checked itself.
    The order of the WHEN branches is the precedence of the reasons.
-#}
{% macro lakerep_record_quarantine_reason() %}
    case
        when record_type is null or record_type not in ('I', 'U', 'D', 'C', 'R')
            then 'unknown_record_type'
        when not coalesce(log_position rlike '^[0-9A-Fa-f]{20}$', false)
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
            or (record_type in ('U', 'D') and before_image is null)
            then 'missing_image'
    end
{% endmacro %}


{#- The source log's text timestamp as a timestamp; null when it is not one. -#}
{% macro lakerep_parse_log_timestamp(column) -%}
    try_to_timestamp({{ column }}, 'yyyy-MM-dd HH:mm:ss[.SSSSSS][.SSS]')
{%- endmacro %}


{#- True when the text is absent or a JSON object (an array, scalar or garbage is not). -#}
{% macro lakerep_is_json_object_or_null(column) -%}
    ({{ column }} is null or (left(ltrim({{ column }}), 1) = '{' and from_json({{ column }}, 'map<string,string>') is not null))
{%- endmacro %}


{#- A log position in the stored form: 20 upper-case hex digits, so string order is log order. -#}
{% macro lakerep_normalize_position(column) -%}
    upper({{ column }})
{%- endmacro %}
