{#-
    Record-level validation of a landed log record (SPEC §2.1): the first failing check, as a
    reason code, or null when the record is valid on its own. Checks that need other records
    (duplicate position, commit of an unknown UOW) are in stg_source_log_checked itself.
    The order of the WHEN branches is the precedence of the reasons. Reads the landed columns and
    before_values, after_values, registered_types and registered_keys.
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
        when record_type in ('I', 'U', 'D')
            then coalesce(
                {{ lakerep_registered_image_reason('before_values') }},
                {{ lakerep_registered_image_reason('after_values') }}
            )
    end
{% endmacro %}


{#-
    Validation of an unloaded source row (SPEC §2.5): the first failing check, as a reason code,
    or null when the row is valid on its own. A snapshot is all or nothing: a partial unload
    would refresh a target without the rows held back, so stg_source_snapshot_checked holds every
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


{#-
    SQL: why a parsed row image (a map of column to text, null when there is no image or it is
    no JSON object) of a registered table cannot be typed as its registration says, or null (also
    for an unregistered table). Each value is checked with try_cast against its registered type,
    so a value its type cannot hold is quarantined instead of becoming null:
    'image_unknown_column' (a name not registered, a wrong case included), 'image_missing_key'
    (a key column absent or null), 'image_value_wrong_type' (`abc` for a number, `1.5` for an
    integer, a number too large for its decimal; extra decimal places are rounded, as Spark casts).
    Reads the columns registered_types and registered_keys (lakerep_registration_lookup).
-#}
{% macro lakerep_registered_image_reason(values) %}
    case
        when {{ values }} is null or registered_types is null then null
        when exists(map_keys({{ values }}), name -> not map_contains_key(registered_types, name))
            then 'image_unknown_column'
        when exists(registered_keys, name -> try_element_at({{ values }}, name) is null)
            then 'image_missing_key'
        when exists(
            map_entries({{ values }}),
            entry -> entry.value is not null
            and {{ _lakerep_value_does_not_fit('entry.value', 'try_element_at(registered_types, entry.key)') }}
        )
            then 'image_value_wrong_type'
    end
{% endmacro %}


{#-
    Select-list entries: the registration of the row's table (source_owner, source_table), null
    for an unregistered one: registered_types (column -> type) and registered_keys. The
    registrations go in as two map literals, once per model, and the type check has one branch
    per distinct type, so the SQL stays small however many tables are registered (a CASE per
    table and column made a view's text overflow the metastore's 32,700 characters at 50 tables).
-#}
{% macro lakerep_registration_lookup() -%}
    try_element_at({{ _lakerep_registered_column_types() }}, concat(source_owner, '.', source_table))
        as registered_types,
    try_element_at({{ _lakerep_registered_key_columns() }}, concat(source_owner, '.', source_table))
        as registered_keys
{%- endmacro %}


{#- A row image (JSON text) as a map of column to text; null when it is absent or no object. -#}
{% macro lakerep_image_values(image_column) -%}
    from_json({{ image_column }}, 'map<string,string>')
{%- endmacro %}


{#- A literal map: OWNER.TABLE -> (column -> registered type) of every registered table. -#}
{% macro _lakerep_registered_column_types() -%}
    {%- set tables = [] -%}
    {%- for registration in lakerep_registrations() -%}
        {%- set columns = [] -%}
        {%- for column in registration.columns -%}
            {%- do columns.append(lakerep_string_literal(column.name) ~ ', ' ~ lakerep_string_literal(column.data_type | lower)) -%}
        {%- endfor -%}
        {%- do tables.append(lakerep_string_literal(registration.source_owner ~ '.' ~ registration.source_table)
            ~ ', map(' ~ columns | join(', ') ~ ')') -%}
    {%- endfor -%}
    {{ 'map(' ~ tables | join(', ') ~ ')' if tables else 'cast(map() as map<string, map<string, string>>)' }}
{%- endmacro %}


{#- A literal map: OWNER.TABLE -> its key columns, of every registered table. -#}
{% macro _lakerep_registered_key_columns() -%}
    {%- set tables = [] -%}
    {%- for registration in lakerep_registrations() -%}
        {%- set keys = [] -%}
        {%- for key in registration.key_columns -%}
            {%- do keys.append(lakerep_string_literal(key)) -%}
        {%- endfor -%}
        {%- do tables.append(lakerep_string_literal(registration.source_owner ~ '.' ~ registration.source_table)
            ~ ', array(' ~ keys | join(', ') ~ ')') -%}
    {%- endfor -%}
    {{ 'map(' ~ tables | join(', ') ~ ')' if tables else 'cast(map() as map<string, array<string>>)' }}
{%- endmacro %}


{#- SQL predicate: the text value cannot be cast to the type the SQL expression names (one of the
    registered types; text always can). -#}
{% macro _lakerep_value_does_not_fit(value, type_expression) -%}
    {%- set data_types = [] -%}
    {%- for registration in lakerep_registrations() -%}
        {%- for column in registration.columns -%}
            {%- if column.data_type | lower != 'string' and column.data_type | lower not in data_types -%}
                {%- do data_types.append(column.data_type | lower) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if data_types -%}
        coalesce(case {{ type_expression }}
            {%- for data_type in data_types %}
            when {{ lakerep_string_literal(data_type) }} then try_cast({{ value }} as {{ data_type }}) is null
            {%- endfor %}
        end, false)
    {%- else -%}
        false
    {%- endif -%}
{%- endmacro %}


{#-
    The source log's text timestamp as a timestamp; null when it is not one. Date and time
    apart by a space or ISO's `T`, up to six decimal places (PostgreSQL drops trailing zeros),
    and an optional zone offset as real logs write it (`+00`, `+05:30`, `-0800`, `Z`: SPEC §2.1),
    normalised to UTC; without an offset the time is UTC already (the session's time zone).
-#}
{% macro lakerep_parse_log_timestamp(column) -%}
    coalesce(
        try_to_timestamp({{ column }}, "yyyy-MM-dd HH:mm:ss[.SSSSSS][XXX][XX][X]"),
        try_to_timestamp({{ column }}, "yyyy-MM-dd'T'HH:mm:ss[.SSSSSS][XXX][XX][X]")
    )
{%- endmacro %}


{#- True when the text is absent or a JSON object (an array, scalar or garbage is not). -#}
{% macro lakerep_is_json_object_or_null(column) -%}
    ({{ column }} is null or (left(ltrim({{ column }}), 1) = '{' and from_json({{ column }}, 'map<string,string>') is not null))
{%- endmacro %}


{#-
    True when the text is a log position: exactly 20 hex digits, in either case. The length is
    checked apart because `$` in a Java pattern also matches before a final line break.
-#}
{% macro lakerep_is_position(column) -%}
    coalesce(length({{ column }}) = 20 and {{ column }} rlike '^[0-9A-Fa-f]{20}$', false)
{%- endmacro %}


{#- A log position in the stored form: 20 upper-case hex digits, so string order is log order. -#}
{% macro lakerep_normalize_position(column) -%}
    upper({{ column }})
{%- endmacro %}
