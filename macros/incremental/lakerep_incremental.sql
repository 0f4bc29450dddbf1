{#-
    dbt-spark's incremental materialization (the project's own takes precedence; it calls
    dbt-spark's), except that a model which knows before it runs that it has nothing to write
    this cycle writes nothing: no temporary view, no schema check, no statement, no Delta commit
    (issue 21: an append of zero rows still costs seconds of planning). Such a model names its
    condition in config `lakerep_writes_if` (lakerep_writes_this_cycle); its first build and a
    full refresh always run.
-#}
{% materialization incremental, adapter='spark', supported_languages=['sql', 'python'] -%}
    {%- set condition = config.get('lakerep_writes_if') -%}
    {%- if condition and is_incremental() and not lakerep_writes_this_cycle(condition) -%}
        {{ log(this ~ ': nothing to write this cycle (' ~ condition ~ ')') }}
        {%- call noop_statement('main', 'SKIP nothing to write (' ~ condition ~ ')', 'SKIP', 0) -%}{%- endcall -%}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {{ return(dbt.materialization_incremental_spark()) }}
{%- endmaterialization %}


{#-
    Whether an incremental model with config lakerep_writes_if writes this cycle, decided before
    any statement of it: run_undecided — the run's restart decision is not recorded yet
    (restart_decisions writes once per run, in its first cycle); pruning — this cycle prunes
    (var lakerep_prune).
-#}
{% macro lakerep_writes_this_cycle(condition) %}
    {%- if condition == 'run_undecided' -%}
        {{ return(not lakerep_run_has_decided(lakerep_run())) }}
    {%- elif condition == 'pruning' -%}
        {{ return(var('lakerep_prune', false) and flags.WHICH in ['run', 'build']) }}
    {%- else -%}
        {{ exceptions.raise_compiler_error(
            'lakerep_writes_if must be run_undecided or pruning, not ' ~ condition
        ) }}
    {%- endif -%}
{% endmacro %}
