{#- Name of the CCD model (a view) of a registered table (lakerep scaffold writes the same names). -#}
{% macro lakerep_ccd_model_name(source_owner, source_table) -%}
    ccd_{{ source_owner | lower }}__{{ source_table | lower }}
{%- endmacro %}
