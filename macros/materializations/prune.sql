{#-
    The capture_prune model's (SPEC §6): the model's log rows appended first (the incremental
    materialization), which raise CD_OLD_SYNCHPOINT in the register view, then the one statement
    that deletes what they announce from the captured log (lakerep_prune_plan's delete_sql), the
    ones that delete the landed log records and Debezium events no session needs (its
    landing_delete_sqls), then the compaction of the tables that hold many small files
    (lakerep_compact_small_files).
    Nothing is written while the model compiles, and a prune cut off between the two leaves a
    gap to refresh, never a hole. A cycle that does not prune writes nothing (the model says so).
-#}
{% materialization prune, adapter='spark' -%}
    {%- set result = lakerep_incremental_materialization(sql) -%}
    {%- set plan = lakerep_prune_plan() -%}
    {%- if plan.delete_sql -%}
        {%- call statement('lakerep_prune') -%}
            {{ plan.delete_sql }}
        {%- endcall -%}
    {%- endif -%}
    {%- for landing_delete_sql in plan.landing_delete_sqls -%}
        {%- call statement('lakerep_prune_landed_log') -%}
            {{ landing_delete_sql }}
        {%- endcall -%}
    {%- endfor -%}
    {%- do lakerep_compact_small_files() -%}
    {{ return(result) }}
{%- endmaterialization %}
