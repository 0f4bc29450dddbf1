{#- Stops the model with the refusal of the run's restart decision, if it was refused. -#}
{% macro lakerep_stop_if_refused(run) %}
    {%- if execute -%}
        {%- set refusals = run_query(
            'select refusal from ' ~ ref('restart_decisions')
            ~ ' where refusal is not null and run_id = ' ~ lakerep_string_literal(run.run_id)
            ~ ' and session_name = ' ~ lakerep_string_literal(run.session_name)
        ).rows -%}
        {%- if refusals -%}
            {{ exceptions.raise_compiler_error(refusals[0][0]) }}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}
