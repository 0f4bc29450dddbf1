{#- True once the run's restart decision is recorded (restart_decisions, on its later cycles);
    asked once per invocation. -#}
{% macro lakerep_run_has_decided(run) %}
    {%- if not (execute and is_incremental()) -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set memo = graph.setdefault('lakerep_run_has_decided', {}) -%}
    {%- set key = invocation_id ~ ':' ~ run.session_name ~ ':' ~ run.run_id -%}
    {%- if key not in memo -%}
        {%- set rows = run_query(
            'select 1 from ' ~ this
            ~ ' where session_name = ' ~ lakerep_string_literal(run.session_name)
            ~ ' and run_id = ' ~ lakerep_string_literal(run.run_id) ~ ' limit 1'
        ).rows -%}
        {%- do memo.update({key: rows | length > 0}) -%}
    {%- endif -%}
    {{ return(memo[key]) }}
{% endmacro %}
