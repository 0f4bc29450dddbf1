{#-
    Whether a model that reads every member's change model (apply_set_status, apply_exceptions,
    apply_trail) reads this member's in this cycle, as lakerep_reads_table_this_cycle does for a
    registered table. Always at parse time, so the model's refs are all known.
-#}
{% macro lakerep_reads_member_this_cycle(target_table) %}
    {{ return(not execute or lakerep_member_changes_this_cycle(target_table)) }}
{% endmacro %}
