{#- dbt's test materialization, with Delta's file skipping as the node's config says (off for data tests). -#}
{% materialization test, adapter='spark' -%}
    {%- do lakerep_node_file_skipping() -%}
    {{ return(dbt.materialization_test_default()) }}
{%- endmaterialization %}
