{{
    config(
        materialized='prune',
        incremental_strategy='append',
        on_schema_change='fail',
        lakerep_writes_if='pruning',
        full_refresh=false,
    )
}}

{#-
    Pruning (SPEC §6): when var lakerep_prune is true (the runner sets it every PRUNE_INTERVAL;
    `lakerep prune` on demand), this model appends one row per CD table and the UOW table saying
    what the prune takes (lakerep_prune_plan), and then its materialization (prune, in
    macros/incremental/materializations.sql) deletes those rows, a statement per table. The
    register view takes CD_OLD_SYNCHPOINT from these rows, so it rises before any row goes.
    Otherwise the model writes nothing. It runs after Capture (capture_cycles counts the cycle's
    rows first), before Apply: it reads pruning_control and the register view as relations (the
    register view reads this model). Never rebuilt by --full-refresh: its rows are the only
    record of what the prunes deleted, and the register's CD_OLD_SYNCHPOINT depends on them.
-#}

-- depends_on: {{ ref('capture_register') }}
-- depends_on: {{ ref('capture_cycles') }}
-- depends_on: {{ ref('uow') }}
-- depends_on: {{ ref('uow_rollbacks') }}
{%- for entry in lakerep_registered_models() %}
-- depends_on: {{ entry.cd }}
-- depends_on: {{ entry.ccd }}
{%- endfor %}

with

pruned as (
    {% for table in lakerep_prune_plan() %}
        select
            current_timestamp() as pruned_at,
            {{ lakerep_string_literal(table.table_owner) }} as table_owner,
            {{ lakerep_string_literal(table.table_name) }} as table_name,
            {{ lakerep_string_literal(table.prune_limit) }} as prune_limit,
            cast({{ lakerep_string_literal(table.retention_cutoff) }} as timestamp) as retention_cutoff,
            cast({{ table.rows_deleted }} as bigint) as rows_deleted,
            {{ lakerep_string_literal(table.cd_old_synchpoint) }} as cd_old_synchpoint
        {{ 'union all' if not loop.last }}
    {% else %}
        select
            cast(null as timestamp) as pruned_at,
            cast(null as string) as table_owner,
            cast(null as string) as table_name,
            cast(null as string) as prune_limit,
            cast(null as timestamp) as retention_cutoff,
            cast(null as bigint) as rows_deleted,
            cast(null as string) as cd_old_synchpoint
        where false
    {% endfor %}
)

select * from pruned
