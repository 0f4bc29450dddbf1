{#- The md5 of the model's contract (its columns' names and types, in order). -#}
{% macro lakerep_contract_md5() %}
    {%- set parts = [] -%}
    {%- for name, data_type in lakerep_contract_columns() -%}
        {%- do parts.append(name | lower ~ ' ' ~ data_type | lower | replace(' ', '')) -%}
    {%- endfor -%}
    {{ return(local_md5(parts | join(','))) }}
{% endmacro %}
