{{
    config(
        materialized='prune',
        full_refresh=false,
    )
}}

{#-
    Pruning (SPEC §6): when var lakerep_prune is true (the runner sets it every PRUNE_INTERVAL;
    `lakerep prune` on demand), this model appends one row per registered source, one for the
    UOW rows and one for the landed log records saying what the prune takes
    (lakerep_prune_plan), and then its materialization (prune, macros/materializations/prune.sql)
    deletes those rows from the captured log, in one statement, and the landed records in
    another. The register view takes CD_OLD_SYNCHPOINT from these rows, so it rises before any
    row goes. Otherwise the model writes nothing. It runs after Capture (capture_cycles), before
    Apply: it reads pruning_control and the register view as relations (the register view reads
    this model). Never rebuilt by --full-refresh: its rows are the only record of what the prunes
    deleted, and the register's CD_OLD_SYNCHPOINT depends on them.
-#}

{%- do lakerep_write_as('skip', reason='this cycle does not prune') if not lakerep_cycle_prunes() else none %}

-- depends_on: {{ ref('capture_cycles') }}
-- depends_on: {{ ref('captured_log') }}
-- depends_on: {{ ref('ccd_rows') }}
-- depends_on: {{ ref('uow_rollbacks') }}
-- depends_on: {{ ref('int_log_records_judged') }}

with

pruned as (
    {% for step in lakerep_prune_plan().steps %}
        select
            current_timestamp() as pruned_at,
            {{ lakerep_string_literal(step.pruned_kind) }} as pruned_kind,
            {{ lakerep_string_literal(step.source_owner) }} as source_owner,
            {{ lakerep_string_literal(step.source_table) }} as source_table,
            {{ lakerep_string_literal(step.prune_limit) }} as prune_limit,
            cast({{ lakerep_string_literal(step.retention_cutoff) }} as timestamp) as retention_cutoff,
            cast({{ step.rows_deleted }} as bigint) as rows_deleted,
            {{ lakerep_string_literal(step.cd_old_synchpoint) }} as cd_old_synchpoint
        {{ 'union all' if not loop.last }}
    {% else %}
        select
            cast(null as timestamp) as pruned_at,
            cast(null as string) as pruned_kind,
            cast(null as string) as source_owner,
            cast(null as string) as source_table,
            cast(null as string) as prune_limit,
            cast(null as timestamp) as retention_cutoff,
            cast(null as bigint) as rows_deleted,
            cast(null as string) as cd_old_synchpoint
        where false
    {% endfor %}
)

select * from pruned
