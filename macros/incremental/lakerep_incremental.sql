{#-
    dbt-spark's incremental and table materializations (the project's own take precedence; they
    call dbt-spark's), except that a model which knows before it runs that it has nothing to
    write this cycle writes nothing: no temporary view, no schema check, no statement, no Delta
    commit (issue 21: a statement that writes nothing still costs a second or more of planning).
    Such a model names its condition in config `lakerep_writes_if` (lakerep_writes_this_cycle);
    its first build and a full refresh always run. A table model skipped keeps the rows of the
    cycle that last wrote it, so its readers filter on the cycle they want.
    A model with config `lakerep_file_skipping=false` is built with Delta's file skipping off
    (lakerep_file_skipping).
-#}
{% materialization incremental, adapter='spark', supported_languages=['sql', 'python'] -%}
    {%- if lakerep_skips_this_cycle() -%}
        {{ return(lakerep_skip()) }}
    {%- endif -%}
    {{ return(lakerep_with_file_skipping(dbt.materialization_incremental_spark)) }}
{%- endmaterialization %}


{% materialization table, adapter='spark', supported_languages=['sql', 'python'] -%}
    {%- if lakerep_skips_this_cycle() -%}
        {{ return(lakerep_skip()) }}
    {%- endif -%}
    {{ return(lakerep_with_file_skipping(dbt.materialization_table_spark)) }}
{%- endmaterialization %}


{#- Whether the model now materializing has a condition that says it writes nothing this cycle. -#}
{% macro lakerep_skips_this_cycle() %}
    {%- set condition = config.get('lakerep_writes_if') -%}
    {{ return(
        condition is not none
        and not should_full_refresh()
        and load_cached_relation(this) is not none
        and not lakerep_writes_this_cycle(condition)
    ) }}
{% endmacro %}


{#- The skipped model's result: dbt reports it as `SKIP nothing to write (<condition>)`. -#}
{% macro lakerep_skip() %}
    {%- set condition = config.get('lakerep_writes_if') -%}
    {{ log(this ~ ': nothing to write this cycle (' ~ condition ~ ')') }}
    {%- call noop_statement('main', 'SKIP nothing to write (' ~ condition ~ ')', 'SKIP', 0) -%}{%- endcall -%}
    {{ return({'relations': [this]}) }}
{% endmacro %}


{#-
    Whether a model with config lakerep_writes_if writes this cycle, decided before any statement
    of it. The condition is one of:
      run_undecided          the run's restart decision is not recorded yet (restart_decisions
                             writes once per run, in its first cycle);
      pruning                this cycle prunes (var lakerep_prune);
      table_changed:O.T      registered table O.T may have CD or CCD rows to write
                             (lakerep_table_changes_this_cycle);
      member_changed:TARGET  the member may change its target (lakerep_member_changes_this_cycle);
      operational_errors     a member met an operational error this Apply cycle (apply_set_status).
-#}
{% macro lakerep_writes_this_cycle(condition) %}
    {%- set name, _, argument = condition.partition(':') -%}
    {%- if name == 'run_undecided' -%}
        {{ return(not lakerep_run_has_decided(lakerep_run())) }}
    {%- elif name == 'pruning' -%}
        {{ return(var('lakerep_prune', false) and flags.WHICH in ['run', 'build']) }}
    {%- elif name == 'table_changed' and argument -%}
        {{ return(lakerep_table_changes_this_cycle(argument)) }}
    {%- elif name == 'member_changed' and argument -%}
        {{ return(lakerep_member_changes_this_cycle(argument)) }}
    {%- elif name == 'operational_errors' -%}
        {{ return(lakerep_set_statuses() | selectattr('operational_errors') | list | length > 0) }}
    {%- else -%}
        {{ exceptions.raise_compiler_error(
            'lakerep_writes_if must be run_undecided, pruning, table_changed:OWNER.TABLE, '
            ~ 'member_changed:TARGET or operational_errors, not ' ~ condition
        ) }}
    {%- endif -%}
{% endmacro %}


{#-
    Runs a materialization with Delta's file skipping (spark.databricks.delta.stats.skipping) as
    the model's config `lakerep_file_skipping` says (default: on), and puts it back on after.
    Skipping costs a Spark job per table scan while Spark plans the statement (Delta parses
    every file's statistics), and it can only leave out files for a filter of literals on a
    column. A model whose scans have no such filter (it reads whole control tables, or filters
    by a subquery) gains nothing from it: apply_plan, apply_trail and capture_window run without
    it, 0.2-0.7 s less each (ADR 0006). A model that failed leaves it off: every invocation turns
    it on again first (on-run-start).
-#}
{% macro lakerep_with_file_skipping(materialization) %}
    {%- set skipping = config.get('lakerep_file_skipping', true) -%}
    {%- if not skipping -%}
        {%- do lakerep_file_skipping(false) -%}
    {%- endif -%}
    {%- set result = materialization() -%}
    {%- if not skipping -%}
        {%- do lakerep_file_skipping(true) -%}
    {%- endif -%}
    {{ return(result) }}
{% endmacro %}


{#- Turns Delta's file skipping on or off for this session's next statements. -#}
{% macro lakerep_file_skipping(enabled) %}
    {%- call statement('lakerep_file_skipping') -%}
        {{ lakerep_file_skipping_sql(enabled) }}
    {%- endcall -%}
{% endmacro %}


{% macro lakerep_file_skipping_sql(enabled) -%}
    set spark.databricks.delta.stats.skipping = {{ 'true' if enabled else 'false' }}
{%- endmacro %}
