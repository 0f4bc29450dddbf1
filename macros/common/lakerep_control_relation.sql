{#-
    A relation of this project by name (in the control schema, or the custom schema given), or
    none when it does not exist yet: for the tables a cycle reads at its start and writes later
    in the cycle, which a ref would turn into a loop in the DAG.
-#}
{% macro lakerep_control_relation(identifier, schema='control') %}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(adapter.get_relation(
        database=this.database,
        schema=generate_schema_name(schema, none),
        identifier=identifier,
    )) }}
{% endmacro %}
