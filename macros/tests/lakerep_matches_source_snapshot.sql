{#-
    Generic data test on a subscription member's target (SPEC §7): the rows by which it differs
    from a consistent snapshot of its source at its synchpoint (lakerep_target_diff_rows), the same
    comparison as `lakerep diff`. A target that cannot be compared (lakerep_target_comparable), no
    such snapshot landed, or the target or the apply state not built yet
    (lakerep_diff_inputs_missing): nothing to compare, no rows.
    Argument: target_table — the member's target (the model tested).
-#}
{% test lakerep_matches_source_snapshot(model, target_table) %}

{#- A target that cannot be compared reads nothing (its test has no other parent). -#}
{%- if not lakerep_target_comparable(lakerep_member(target_table)).comparable
    or (execute and lakerep_diff_inputs_missing(target_table)) -%}
select cast(null as string) as difference where false
{%- else -%}
{{ lakerep_target_diff_rows(target_table, lakerep_target_synchpoint(target_table)) }}
{%- endif %}

{% endtest %}
