{#-
    The run this dbt invocation belongs to, from dbt vars the runner passes (SPEC §4): a dict
    with session_name, start_type (cold, warm, warmns or recover), run_id and the restart token
    file's overrides as rows (scope 'explicit' with source_owner/source_table, or 'special').
    A plain `dbt build` is one warm cycle of the session 'default' with no token file; its run
    is the dbt invocation.
-#}
{% macro lakerep_run() %}
    {%- set start_type = var('lakerep_start', 'warm') -%}
    {%- if execute and start_type not in ['cold', 'warm', 'warmns', 'recover'] -%}
        {{ exceptions.raise_compiler_error(
            "lakerep_start must be cold, warm, warmns or recover, not '" ~ start_type ~ "'"
        ) }}
    {%- endif -%}
    {%- set tokens = var('lakerep_restart_tokens', {}) -%}
    {%- if tokens is not mapping -%}
        {%- set tokens = {} -%}
    {%- endif -%}
    {%- set overrides = [] -%}
    {%- for entry in tokens.get('explicit', []) -%}
        {%- do overrides.append({
            'scope': 'explicit',
            'source_owner': entry.source_owner,
            'source_table': entry.source_table,
            'restart1': entry.restart1,
            'restart2': entry.restart2,
        }) -%}
    {%- endfor -%}
    {%- if tokens.get('special') -%}
        {%- do overrides.append({
            'scope': 'special',
            'source_owner': none,
            'source_table': none,
            'restart1': tokens.special.restart1,
            'restart2': tokens.special.restart2,
        }) -%}
    {%- endif -%}
    {{ return({
        'session_name': var('lakerep_session', 'default'),
        'start_type': start_type,
        'run_id': var('lakerep_run_id', '') or invocation_id,
        'overrides': overrides,
    }) }}
{% endmacro %}


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


{#- True once the run's restart decision is recorded (restart_decisions, on its later cycles). -#}
{% macro lakerep_run_has_decided(run) %}
    {%- if not (execute and is_incremental()) -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set rows = run_query(
        'select 1 from ' ~ this
        ~ ' where session_name = ' ~ lakerep_string_literal(run.session_name)
        ~ ' and run_id = ' ~ lakerep_string_literal(run.run_id) ~ ' limit 1'
    ).rows -%}
    {{ return(rows | length > 0) }}
{% endmacro %}
