{#-
    dbt-spark's incremental and table materializations and dbt's test materialization (the
    project's own take precedence; they call dbt's), except that a model which knows before it
    runs that it has nothing to write this cycle writes nothing: no temporary view, no schema
    check, no statement, no Delta commit (issue 21: a statement that writes nothing still costs a second or more of planning).
    Such a model names its condition in config `lakerep_writes_if` (_lakerep_writes_this_cycle);
    its first build and a full refresh always run. A table model skipped keeps the rows of the
    cycle that last wrote it, so its readers filter on the cycle they want.
    Models and data tests are built with Delta's file skipping as their config
    `lakerep_file_skipping` says (_lakerep_with_file_skipping).
-#}
{% materialization incremental, adapter='spark', supported_languages=['sql', 'python'] -%}
    {%- if _lakerep_skips_this_cycle() -%}
        {{ return(_lakerep_skip()) }}
    {%- endif -%}
    {%- set result = _lakerep_with_file_skipping(dbt.materialization_incremental_spark) -%}
    {%- do _lakerep_end_idempotent_append() -%}
    {{ return(result) }}
{%- endmaterialization %}


{#-
    The capture_prune model's (SPEC §6): the project's incremental append of the prune's log rows,
    which raise CD_OLD_SYNCHPOINT in the register view, then the deletes they announce, a
    statement per table in dbt's log (lakerep_prune_plan's delete_sql), then the compaction of
    the tables that hold many small files (lakerep_compact_small_files). Nothing is written while
    the model compiles, and a prune cut off between the two leaves a gap to refresh, never a hole.
-#}
{% materialization prune, adapter='spark' -%}
    {%- if _lakerep_skips_this_cycle() -%}
        {{ return(_lakerep_skip()) }}
    {%- endif -%}
    {%- set result = _lakerep_with_file_skipping(dbt.materialization_incremental_spark) -%}
    {%- for step in lakerep_prune_plan() -%}
        {%- call statement('lakerep_prune_' ~ step.table_name) -%}
            {{ step.delete_sql }}
        {%- endcall -%}
    {%- endfor -%}
    {%- do lakerep_compact_small_files() -%}
    {{ return(result) }}
{%- endmaterialization %}


{% materialization test, adapter='spark' -%}
    {{ return(_lakerep_with_file_skipping(dbt.materialization_test_default)) }}
{%- endmaterialization %}


{#-
    dbt-spark's view materialization, except that a view already defined as this invocation
    would define it is kept: no `create or replace view`, no contract query (issue 21: the 13
    views cost a statement each in every cycle, and those with a contract a second one, for a
    definition that had not changed). A view is kept when it exists as a view, the model has no
    hooks, the run is not a full refresh, and the view's property lakerep_definition holds the
    md5 of its compiled SQL and description (_lakerep_view_definition). A view it creates gets
    that property and SCHEMA EVOLUTION, so a `select *` follows the columns of the relations it
    reads: a kept view never shows a stale column list.
-#}
{% materialization view, adapter='spark' -%}
    {%- if _lakerep_view_is_current() -%}
        {{ log(this ~ ': view definition unchanged, kept') }}
        {%- call noop_statement('main', 'KEPT unchanged view', 'KEPT', 0) -%}{%- endcall -%}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {%- set result = create_or_replace_view() -%}
    {%- call statement('lakerep_view_schema_evolution') -%}
        alter view {{ this }} with schema evolution
    {%- endcall -%}
    {%- call statement('lakerep_view_definition') -%}
        alter view {{ this }} set tblproperties ('lakerep_definition' = '{{ _lakerep_view_definition() }}')
    {%- endcall -%}
    {{ return(result) }}
{%- endmaterialization %}


{#- Whether the view now materializing exists with the definition it would be created with. -#}
{% macro _lakerep_view_is_current() %}
    {%- if should_full_refresh() or pre_hooks or post_hooks -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set relation = load_cached_relation(this) -%}
    {{ return(
        relation is not none
        and relation.is_view
        and ('lakerep_definition=' ~ _lakerep_view_definition()) in (relation.information or '')
    ) }}
{% endmacro %}


{#- The md5 of what defines the view now materializing: its compiled SQL and its description. -#}
{% macro _lakerep_view_definition() %}
    {{ return(local_md5(sql ~ '\n-- ' ~ (model.description or ''))) }}
{% endmacro %}


{% materialization table, adapter='spark', supported_languages=['sql', 'python'] -%}
    {%- if _lakerep_skips_this_cycle() -%}
        {{ return(_lakerep_skip()) }}
    {%- endif -%}
    {{ return(_lakerep_with_file_skipping(dbt.materialization_table_spark)) }}
{%- endmaterialization %}


{#- Whether the model now materializing has a condition that says it writes nothing this cycle. -#}
{% macro _lakerep_skips_this_cycle() %}
    {%- set condition = config.get('lakerep_writes_if') -%}
    {{ return(
        condition is not none
        and not should_full_refresh()
        and load_cached_relation(this) is not none
        and not _lakerep_writes_this_cycle(condition)
    ) }}
{% endmacro %}


{#- The skipped model's result: dbt reports it as `SKIP nothing to write (<condition>)`. -#}
{% macro _lakerep_skip() %}
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
      operational_errors     a member met an operational error this Apply cycle (apply_set_status);
      snapshots_landed       an unload landed that stg_source_snapshot_checked has not judged
                             (lakerep_snapshots_landed).
-#}
{% macro _lakerep_writes_this_cycle(condition) %}
    {%- set name, _, argument = condition.partition(':') -%}
    {%- if name == 'run_undecided' -%}
        {{ return(not lakerep_run_has_decided(lakerep_run())) }}
    {%- elif name == 'pruning' -%}
        {{ return(lakerep_cycle_prunes()) }}
    {%- elif name == 'table_changed' and argument -%}
        {{ return(lakerep_table_changes_this_cycle(argument)) }}
    {%- elif name == 'member_changed' and argument -%}
        {{ return(lakerep_member_changes_this_cycle(argument)) }}
    {%- elif name == 'operational_errors' -%}
        {{ return(lakerep_set_statuses() | selectattr('operational_errors') | list | length > 0) }}
    {%- elif name == 'snapshots_landed' -%}
        {{ return(lakerep_snapshots_landed()) }}
    {%- else -%}
        {{ exceptions.raise_compiler_error(
            'lakerep_writes_if must be run_undecided, pruning, table_changed:OWNER.TABLE, '
            ~ 'member_changed:TARGET, operational_errors or snapshots_landed, not ' ~ condition
        ) }}
    {%- endif -%}
{% endmacro %}


{#-
    Runs a materialization with Delta's file skipping (spark.databricks.delta.stats.skipping) as
    the node's config `lakerep_file_skipping` says: on for models unless they say otherwise, off
    for data tests (dbt_project.yml). Skipping costs a Spark job per table scan while Spark plans
    the statement (Delta parses every file's statistics), and it can only leave out files for a
    filter of literals on a column. A node whose scans have no such filter (it reads whole
    tables, or filters by a subquery) gains nothing from it: apply_plan, apply_trail,
    capture_window and every data test run without it (ADR 0006).
-#}
{% macro _lakerep_with_file_skipping(materialization) %}
    {%- do _lakerep_file_skipping(config.get('lakerep_file_skipping', true)) -%}
    {{ return(materialization()) }}
{% endmacro %}


{#-
    Turns Delta's file skipping on or off for the session's next statements, with a SET only
    when the node before wanted the other: the invocation's graph remembers the last setting
    (on at its start: on-run-start sets it, and on-run-end sets it on again for the runner's own
    queries). The session is shared by dbt's threads: the profiles run one.
-#}
{% macro _lakerep_file_skipping(enabled) %}
    {%- set memo = graph.setdefault('lakerep_file_skipping', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- do memo.update({'invocation_id': invocation_id, 'enabled': true}) -%}
    {%- endif -%}
    {%- if memo.enabled != enabled -%}
        {%- call statement('lakerep_file_skipping') -%}
            {{ lakerep_file_skipping_sql(enabled) }}
        {%- endcall -%}
        {%- do memo.update({'enabled': enabled}) -%}
    {%- endif -%}
{% endmacro %}


{#- Unsets the transaction identifiers after the model that set them (no statement otherwise). -#}
{% macro _lakerep_end_idempotent_append() %}
    {%- set memo = graph.setdefault('lakerep_idempotent_append', {}) -%}
    {%- if memo.get('set_by') == model.unique_id -%}
        {%- for setting in ['txnAppId', 'txnVersion'] -%}
            {%- call statement('lakerep_txn_reset') -%}
                {{ lakerep_idempotent_append_reset_sql(setting) }}
            {%- endcall -%}
        {%- endfor -%}
        {%- do memo.update({'set_by': none}) -%}
    {%- endif -%}
{% endmacro %}
