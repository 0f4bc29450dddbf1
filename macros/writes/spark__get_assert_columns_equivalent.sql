{#-
    dbt's check of an enforced contract when a view is created (dbt-adapters'
    assert_columns_equivalent), against lakerep_contract_columns rather than the YAML alone: a
    registered table's CD and CCD views gain the columns its schema history added (ADR 0012),
    and a contract that refused them would stop the cycle the source changed in. Names and
    types, in any order, as dbt compares them.
-#}
{% macro spark__get_assert_columns_equivalent(sql) %}
    {%- set contract = {} -%}
    {%- for name, data_type in lakerep_contract_columns() -%}
        {%- do contract.update({name: {'name': name, 'data_type': data_type, 'quote': true}}) -%}
    {%- endfor -%}
    {%- set sql_columns = format_columns(get_column_schema_from_query(sql, config.get('sql_header', none))) -%}
    {%- set yaml_columns = format_columns(get_column_schema_from_query(get_empty_schema_sql(contract))) -%}
    {%- set yaml_formatted = yaml_columns | map(attribute='formatted') | list -%}
    {%- if sql_columns | length != yaml_columns | length -%}
        {%- do exceptions.raise_contract_error(yaml_columns, sql_columns) -%}
    {%- endif -%}
    {%- for column in sql_columns if column.formatted not in yaml_formatted -%}
        {%- do exceptions.raise_contract_error(yaml_columns, sql_columns) -%}
    {%- endfor -%}
{% endmacro %}
