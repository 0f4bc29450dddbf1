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
