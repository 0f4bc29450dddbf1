{#-
    The models a target's comparison reads: the target, the landed snapshots, the apply state
    (its synchpoint), and the changes of its source (whether a snapshot is still consistent).
    The data test declares them all as its parents.
-#}
{% macro lakerep_diff_inputs(target_table) %}
    {%- set registration = lakerep_member(target_table).registration -%}
    {{ return([
        target_table, 'stg_source_snapshot', 'apply_set_status', 'apply_plan', 'apply_trail', 'register', 'uow',
        lakerep_cd_model_name(registration.source_owner, registration.source_table),
    ]) }}
{% endmacro %}
