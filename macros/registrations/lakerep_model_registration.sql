{#-
    The registration (lakerep_registrations) whose columns a model holds: a registered table's CD
    or CCD view, or a subscription member's target (its listed columns, when it lists them);
    none for any other model. Its contract follows the registration as the schema history evolves
    it (lakerep_contract_columns). Every incremental model asks, several times a compile: the map
    of model to registration is built once per invocation (a memo in its graph, as
    lakerep_rows_once keeps its own).
    Argument: model_name — the model.
-#}
{% macro lakerep_model_registration(model_name) %}
    {%- set memo = graph.setdefault('lakerep_model_registrations', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- set by_model = {} -%}
        {%- for registration in lakerep_registrations() -%}
            {%- do by_model.update({
                lakerep_cd_model_name(registration.source_owner, registration.source_table) | trim: registration,
                lakerep_ccd_model_name(registration.source_owner, registration.source_table) | trim: registration,
            }) -%}
        {%- endfor -%}
        {%- for member in lakerep_members() -%}
            {#- a target with a column list holds (and evolves) those columns only -#}
            {%- set held = member.registration.copy() -%}
            {%- do held.update({'columns': member.columns}) -%}
            {%- do by_model.update({member.target_table: held}) -%}
        {%- endfor -%}
        {%- do memo.clear() -%}
        {%- do memo.update({'invocation_id': invocation_id, 'by_model': by_model}) -%}
    {%- endif -%}
    {{ return(memo.by_model.get(model_name)) }}
{% endmacro %}
