{{
    config(
        materialized='incremental',
        incremental_strategy='append',
        on_schema_change='fail',
        lakerep_writes_if='pruning',
    )
}}

{#-
    Pruning (SPEC §6): when var lakerep_prune is true (the runner sets it every PRUNE_INTERVAL;
    `lakerep prune` on demand), this model prunes the CD and UOW tables
    (lakerep_prune_changes, after Apply has moved pruning control) and appends one row per
    table saying what went. Otherwise it appends nothing. Only `dbt run` and `dbt build` prune:
    compiling the project never deletes.
-#}

-- depends_on: {{ ref('pruning_control') }}
-- depends_on: {{ ref('register') }}
-- depends_on: {{ ref('uow') }}
-- depends_on: {{ ref('uow_rollbacks') }}
{%- for entry in lakerep_registered_models() %}
-- depends_on: {{ entry.cd }}
{%- endfor %}

{%- set pruned = [] %}
{%- if execute and var('lakerep_prune', false) and flags.WHICH in ['run', 'build'] %}
    {%- set pruned = lakerep_prune_changes() %}
{%- endif %}

with

pruned as (
    {% for table in pruned %}
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
