{#- The CD and CCD views of a registered table, as refs (the register names them), in one macro
    so that a unit test of the register can give them for tables the project does not register. -#}
{% macro lakerep_source_views(source_owner, source_table) %}
    {{ return({
        'cd': ref(lakerep_cd_model_name(source_owner, source_table)),
        'ccd': ref(lakerep_ccd_model_name(source_owner, source_table)),
    }) }}
{% endmacro %}
