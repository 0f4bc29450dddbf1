{#-
    The models a target's comparison reads: the target, the landed snapshots, the apply state
    (its synchpoint), the register and the captured log (whether a snapshot is still
    consistent). The data test declares them all as its parents.
-#}
{% macro lakerep_diff_inputs(target_table) %}
    {{ return([
        target_table, 'int_snapshot_rows_valid', 'apply_changes', 'apply_plan', 'register', 'captured_log',
    ]) }}
{% endmacro %}
