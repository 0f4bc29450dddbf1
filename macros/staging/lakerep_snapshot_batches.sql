{#-
    Where the judging of landed unloads stands, one query, as literals for Delta's file skipping:
    a dict with judged, the highest landing batch stg_source_snapshot_checked holds (-1 before
    its first build as a table: every unload above it is new to it, as the log's records are to
    stg_source_log_checked), and landed, the highest batch of the snapshot landing table (-1 for
    none).
-#}
{% macro lakerep_snapshot_batches() %}
    {%- if not execute or not is_incremental() -%}
        {{ return({'judged': -1, 'landed': -1}) }}
    {%- endif -%}
    {%- set query -%}
        select
            (select coalesce(max(landing_batch), -1) from {{ this }}) as judged,
            (select coalesce(max(landing_batch), -1) from {{ source('lakerep_raw', 'source_snapshot') }}) as landed
    {%- endset -%}
    {%- set row = run_query(query).rows[0] -%}
    {{ return({'judged': row['judged'] | int, 'landed': row['landed'] | int}) }}
{% endmacro %}
