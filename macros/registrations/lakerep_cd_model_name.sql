{#- Name of the CD model of a registered table (lakerep scaffold writes the same names). -#}
{% macro lakerep_cd_model_name(source_owner, source_table) -%}
    cd_{{ source_owner | lower }}__{{ source_table | lower }}
{%- endmacro %}
