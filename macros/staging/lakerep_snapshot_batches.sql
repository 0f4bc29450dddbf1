{#-
    Where the judging of landed unloads stands, one query, as literals for Delta's file skipping:
    a dict with judged, the highest landing batch stg_source_snapshot_checked holds (-1 before
    its first build as a table: every unload above it is new to it, as the log's records are to
    stg_source_log_checked); read, the highest batch a capture cycle read (capture_window's
    up_to_batch: that cycle had judged every unload landed by then, -1 before the first); and
    landed, the highest batch of the snapshot landing table (-1 for none). Asked before
    capture_window is written in the cycle, so it reads that table itself, never through
    lakerep_capture_window's memo.
-#}
{% macro lakerep_snapshot_batches() %}
    {%- if not execute or not is_incremental() -%}
        {{ return({'judged': -1, 'read': -1, 'landed': -1}) }}
    {%- endif -%}
    {%- set window = lakerep_control_relation('capture_window') -%}
    {%- set query -%}
        select
            (select coalesce(max(landing_batch), -1) from {{ this }}) as judged,
            {%- if window is not none %}
            (select coalesce(max(up_to_batch), -1) from {{ window }}) as read,
            {%- else %}
            -1 as read,
            {%- endif %}
            (select coalesce(max(landing_batch), -1) from {{ source('lakerep_raw', 'source_snapshot') }}) as landed
    {%- endset -%}
    {%- set row = run_query(query).rows[0] -%}
    {{ return({'judged': row['judged'] | int, 'read': row['read'] | int, 'landed': row['landed'] | int}) }}
{% endmacro %}
