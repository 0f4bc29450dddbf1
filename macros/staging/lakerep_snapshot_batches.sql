{#-
    Where the judging of landed unloads stands, one query, as literals for Delta's file skipping:
    a dict with staged, the landing batch up to which stg_source_snapshot_checked has judged every
    landed unload (the highest batch it holds, or the highest batch a completed capture cycle read,
    capture_window's up_to_batch: that cycle had staged every snapshot landed by then), and
    landed, the highest batch of the snapshot landing table (-1 for none). Before the model's
    first build as a table: staged -1. Asked before capture_window is written in the cycle, so it
    reads that table itself, never through lakerep_capture_window's memo.
-#}
{% macro lakerep_snapshot_batches() %}
    {%- if not execute or not is_incremental() -%}
        {{ return({'staged': -1, 'landed': -1}) }}
    {%- endif -%}
    {%- set window = lakerep_control_relation('capture_window') -%}
    {%- set query -%}
        select
            greatest(
                (select coalesce(max(landing_batch), -1) from {{ this }}),
                {%- if window is not none %}
                (select coalesce(max(up_to_batch), -1) from {{ window }})
                {%- else %}
                -1
                {%- endif %}
            ) as staged,
            (select coalesce(max(landing_batch), -1) from {{ source('lakerep_raw', 'source_snapshot') }}) as landed
    {%- endset -%}
    {%- set row = run_query(query).rows[0] -%}
    {{ return({'staged': row['staged'] | int, 'landed': row['landed'] | int}) }}
{% endmacro %}
