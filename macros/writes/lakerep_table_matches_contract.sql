{#-
    Refuses, with one line, to write a table whose columns are not the model's contract (names
    and types, in order): a lake built by another version of the project, a model whose contract
    changed, or a table another tool replaced with other columns. Nothing is written. Asked once
    per table and contract in a process (the memo lives in the graph, which a running session's
    invocations share), so a session's later cycles send no statement for it.
    Argument: relation — the table.
-#}
{% macro lakerep_table_matches_contract(relation) %}
    {%- set expected = lakerep_contract_md5() -%}
    {%- set memo = graph.setdefault('lakerep_contracts_checked', {}) -%}
    {%- set key = relation ~ ':' ~ expected -%}
    {%- if key in memo -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set held = [] -%}
    {%- for column in adapter.get_columns_in_relation(relation) -%}
        {%- do held.append(column.name | lower ~ ' ' ~ _lakerep_type_name(column.data_type)) -%}
    {%- endfor -%}
    {%- set declared = [] -%}
    {%- for name, data_type in lakerep_contract_columns() -%}
        {%- do declared.append(name | lower ~ ' ' ~ _lakerep_type_name(data_type)) -%}
    {%- endfor -%}
    {%- if held != declared -%}
        {{ exceptions.raise_compiler_error(
            relation ~ ' has other columns than its model declares (a lake of another lakerep version, a '
            ~ 'changed contract, or a table replaced by another tool): nothing was written. Rebuild the lake '
            ~ '(lakerep generate --fresh, or drop its schemas), or run dbt with --full-refresh --select '
            ~ model.name ~ '. The table has: ' ~ held | join(', ') ~ '; the model declares: ' ~ declared | join(', ')
        ) }}
    {%- endif -%}
    {%- do memo.update({key: true}) -%}
{% endmacro %}


{#- A type's name as Spark's describe writes it: lower case, no spaces, integer as int. -#}
{% macro _lakerep_type_name(data_type) %}
    {%- set name = (data_type or '') | lower | replace(' ', '') -%}
    {{ return('int' if name == 'integer' else name) }}
{% endmacro %}
