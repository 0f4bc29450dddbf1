{#-
    The columns a model's rows from before them take with their default (ADR 0012): those its
    source added with a default, when the model is a target of current rows (a user copy or a
    point-in-time copy; a CCD keeps its changes as they were), among the columns it holds. Empty
    for any other model: no default of it is ever pending.
    Argument: model_name — the model.
-#}
{% macro lakerep_columns_taking_defaults(model_name) %}
    {%- set structures = lakerep_members() | selectattr('target_table', 'equalto', model_name)
        | map(attribute='target_structure') | list -%}
    {%- if not structures or 'ccd' in structures -%}
        {{ return([]) }}
    {%- endif -%}
    {{ return(lakerep_model_registration(model_name).columns | selectattr('added_at')
        | rejectattr('default', 'none') | list) }}
{% endmacro %}
