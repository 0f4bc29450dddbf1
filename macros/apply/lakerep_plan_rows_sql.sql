{#-
    SQL of the plan rows of the Apply cycle now running, as literals (lakerep_current_plan_rows:
    read once per invocation), so that apply_changes does not plan the apply_cycle_plan view,
    and the control tables it reads, again. Columns: apply_cycle_plan's, less none; a column a
    row lacks is null. Argument: plans — lakerep_current_plan_rows().
-#}
{% macro lakerep_plan_rows_sql(plans) %}
    {%- set columns = [
        ('apply_cycle', 'bigint'), ('capture_cycle', 'bigint'), ('planned_at', 'timestamp'),
        ('apply_qual', 'string'), ('set_name', 'string'), ('on_operational_error', 'string'),
        ('source_owner', 'string'), ('source_table', 'string'), ('target_table', 'string'),
        ('target_structure', 'string'), ('action', 'string'), ('reason', 'string'),
        ('cd_new_synchpoint', 'string'), ('from_synchpoint', 'string'), ('to_synchpoint', 'string'),
        ('to_synchtime', 'timestamp'), ('fetch_after', 'string'), ('snapshot_id', 'string'),
        ('refresh_start', 'string'), ('refresh_end', 'string'), ('mitigate_through', 'string'),
        ('marker_id', 'string'), ('set_action', 'string'), ('plan_changed', 'boolean'),
    ] -%}
    {{- lakerep_literal_rows(columns, plans) }}
{% endmacro %}
