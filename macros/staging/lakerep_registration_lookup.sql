{#-
    Select-list entries: the registration of the row's table (source_owner, source_table), null
    for an unregistered one: registered_types (column -> type), registered_keys, and
    registered_stop, the log position of an unsafe change that stopped the table (ADR 0012), or
    null. The
    registrations go in as two map literals, once per model, and the type check has one branch
    per distinct type, so the SQL stays small however many tables are registered (a CASE per
    table and column made a view's text overflow the metastore's 32,700 characters at 50 tables).
-#}
{% macro lakerep_registration_lookup() -%}
    try_element_at({{ _lakerep_registered_column_types() }}, concat(source_owner, '.', source_table))
        as registered_types,
    try_element_at({{ _lakerep_registered_key_columns() }}, concat(source_owner, '.', source_table))
        as registered_keys,
    try_element_at({{ _lakerep_registered_stops() }}, concat(source_owner, '.', source_table))
        as registered_stop
{%- endmacro %}


{#- A literal map: OWNER.TABLE -> the position its unsafe change stopped it at, of every stopped
    table. -#}
{% macro _lakerep_registered_stops() -%}
    {%- set tables = [] -%}
    {%- for registration in lakerep_registrations() if registration.stopped_at -%}
        {%- do tables.append(lakerep_string_literal(registration.source_owner ~ '.' ~ registration.source_table)
            ~ ', ' ~ lakerep_string_literal(registration.stopped_at)) -%}
    {%- endfor -%}
    {{ 'map(' ~ tables | join(', ') ~ ')' if tables else 'cast(map() as map<string, string>)' }}
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
