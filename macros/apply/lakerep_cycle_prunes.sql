{#-
    Whether this dbt invocation prunes (SPEC §6): var lakerep_prune (the runner sets it every
    PRUNE_INTERVAL; `lakerep prune` on demand) under `dbt run` or `dbt build` only, so compiling
    the project never prunes. The one rule behind capture_prune's condition (lakerep_writes_if
    'pruning') and lakerep_prune_plan.
-#}
{% macro lakerep_cycle_prunes() %}
    {{ return(var('lakerep_prune', false) and flags.WHICH in ['run', 'build']) }}
{% endmacro %}
