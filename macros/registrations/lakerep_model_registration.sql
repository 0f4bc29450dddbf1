{#-
    The registration (lakerep_registrations) whose columns a model holds: a registered table's CD
    or CCD view, or a subscription member's target; none for any other model. Its contract
    follows the registration as the schema history evolves it (lakerep_contract_columns).
    Argument: model_name — the model.
-#}
{% macro lakerep_model_registration(model_name) %}
    {%- for registration in lakerep_registrations() -%}
        {%- if model_name in [lakerep_cd_model_name(registration.source_owner, registration.source_table) | trim,
            lakerep_ccd_model_name(registration.source_owner, registration.source_table) | trim] -%}
            {{ return(registration) }}
        {%- endif -%}
    {%- endfor -%}
    {%- for member in lakerep_members() if member.target_table == model_name -%}
        {{ return(member.registration) }}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}
