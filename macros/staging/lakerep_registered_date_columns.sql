{#-
    SQL: the registered date columns (an array) of the table OWNER.TABLE, null for a table without
    any. One map literal of the tables that have such columns, so the SQL stays small however many
    tables are registered (a CASE per table made a view's text overflow the metastore's 32,700
    characters at 50 tables).
    Arguments: owner, table — SQL expressions of the table's names.
-#}
{% macro lakerep_registered_date_columns(owner, table) -%}
    {%- set tables = _lakerep_registered_date_tables() -%}
    {%- if tables -%}
        {%- set entries = [] -%}
        {%- for name, dates in tables -%}
            {%- do entries.append(lakerep_string_literal(name) ~ ', array(' ~ dates | join(', ') ~ ')') -%}
        {%- endfor -%}
        try_element_at(map({{ entries | join(', ') }}), concat({{ owner }}, '.', {{ table }}))
    {%- else -%}
        cast(null as array<string>)
    {%- endif -%}
{%- endmacro %}


{#- (OWNER.TABLE, [its date columns as literals]) of every registered table with date columns. -#}
{% macro _lakerep_registered_date_tables() -%}
    {%- set tables = [] -%}
    {%- for registration in lakerep_registrations() -%}
        {%- set dates = [] -%}
        {%- for column in registration.columns if column.data_type | lower == 'date' -%}
            {%- do dates.append(lakerep_string_literal(column.name)) -%}
        {%- endfor -%}
        {%- if dates -%}
            {%- do tables.append((registration.source_owner ~ '.' ~ registration.source_table, dates)) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(tables) }}
{%- endmacro %}
