{#-
    The statement that creates (or, on a full refresh, replaces) the model's table: its contract's
    columns, Delta, and these table properties:
      lakerep_columns                 the md5 of the contract, which later writes check against;
      delta.dataSkippingStatsColumns  the columns of config lakerep_stats_columns, when it names
                                      some: Delta then collects statistics on those alone, not
                                      on the first 32 columns (row images among them), which
                                      cost most of a small write (ADR 0011);
    and those of config lakerep_table_properties (a dict).
    Argument: relation — the model's relation.
-#}
{% macro lakerep_create_table_sql(relation) %}
    {%- set columns = lakerep_contract_columns() -%}
    {%- set properties = {'lakerep_columns': lakerep_contract_md5()} -%}
    {%- set stats_columns = config.get('lakerep_stats_columns') -%}
    {%- if stats_columns -%}
        {%- do properties.update({'delta.dataSkippingStatsColumns': stats_columns | join(',')}) -%}
    {%- endif -%}
    {%- do properties.update(config.get('lakerep_table_properties') or {}) -%}
    create or replace table {{ relation }} (
        {%- for name, data_type in columns %}
        `{{ name }}` {{ data_type }}{{ ',' if not loop.last }}
        {%- endfor %}
    )
    using delta
    {%- if config.get('partition_by') %}
    partitioned by ({{ config.get('partition_by') | join(', ') }})
    {%- endif %}
    tblproperties (
        {%- for key, value in properties.items() %}
        '{{ key }}' = '{{ value }}'{{ ',' if not loop.last }}
        {%- endfor %}
    )
{% endmacro %}
