{#-
    Whether this dbt invocation prunes (SPEC §6), under `dbt run` or `dbt build` only, so
    compiling the project never prunes. Var lakerep_prune: true prunes (`lakerep prune`; a
    continuous run's cycle every PRUNE_INTERVAL), false does not, and 'due' (the default, so a
    plain `dbt build` and each `lakerep run --once` too) prunes when the lake's last prune is
    PRUNE_INTERVAL seconds old (_lakerep_prune_due). The one rule behind capture_prune's
    condition and lakerep_prune_plan.
-#}
{% macro lakerep_cycle_prunes() %}
    {%- set prune = var('lakerep_prune', 'due') -%}
    {%- if flags.WHICH not in ['run', 'build'] or not prune -%}
        {{ return(false) }}
    {%- elif prune == 'due' -%}
        {{ return(_lakerep_prune_due()) }}
    {%- endif -%}
    {{ return(true) }}
{% endmacro %}


{#-
    Whether the lake's prune is due: var prune_interval seconds have passed since its last prune
    (capture_prune's newest row) or, before any, since its first capture cycle, so the interval
    carries across runs whatever kind they are. Read once per invocation (lakerep_rows_once),
    after Capture's cycle (capture_prune runs after capture_cycles); false while the project
    compiles, on a lake without a cycle, and in an invocation without Apply (apply_cycles not
    selected, as in a capture-only run): what a prune may remove follows Apply's progress, so it
    waits for Apply.
-#}
{% macro _lakerep_prune_due() %}
    {%- set cycles = lakerep_control_relation('capture_cycles') -%}
    {%- if cycles is none or 'model.lakerep.apply_cycles' not in selected_resources -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set prunes = lakerep_control_relation('capture_prune') -%}
    {%- set since -%}
        coalesce(
            {%- if prunes is not none %}(select max(pruned_at) from {{ prunes }}),{% endif %}
            (select min(completed_at) from {{ cycles }} where record_kind = 'cycle')
        )
    {%- endset -%}
    {{ return(lakerep_rows_once(
        'select coalesce(unix_micros(current_timestamp()) - unix_micros(' ~ since ~ ') >= '
        ~ (var('prune_interval') | float * 1000000) | int ~ ', false) as due'
    )[0].due) }}
{% endmacro %}
