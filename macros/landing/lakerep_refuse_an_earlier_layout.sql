{#-
    Refuses a lake that lakerep's earlier layout built (a Delta table per SPEC table per source,
    ADR 0011): its tables cannot be read as the shared ones, and a cycle over it would mix the two.
    Its register table, lakerep_control.capture_register, names it; the layout today has none
    (register is a view). Nothing is written before the refusal.
-#}
{% macro lakerep_refuse_an_earlier_layout() %}
    {%- if execute -%}
        {%- set schema = generate_schema_name('control', none) -%}
        {%- set earlier = adapter.get_relation(database=none, schema=schema, identifier='capture_register') -%}
        {%- if earlier is not none and earlier.is_table -%}
            {%- do exceptions.raise_compiler_error(
                'this lake was built by an earlier lakerep layout (it holds ' ~ schema ~ '.capture_register): '
                ~ 'it cannot be read in place; start a new lake (a new LAKEREP_HOME, or drop its lakerep_* '
                ~ 'schemas) and replicate from a cold start'
            ) -%}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}
