{#-
    The model's contract as [[name, data type], ...], in the order its YAML declares them: the
    table's columns and the columns every write names.
-#}
{% macro lakerep_contract_columns() %}
    {%- set columns = [] -%}
    {%- for column in model.columns.values() -%}
        {%- if column.data_type is none -%}
            {{ exceptions.raise_compiler_error(model.name ~ ': column ' ~ column.name ~ ' has no data_type in its contract') }}
        {%- endif -%}
        {%- do columns.append([column.name, column.data_type]) -%}
    {%- endfor -%}
    {%- if not columns -%}
        {{ exceptions.raise_compiler_error(model.name ~ ' declares no columns: an incremental model of this project writes its contract') }}
    {%- endif -%}
    {{ return(columns) }}
{% endmacro %}
