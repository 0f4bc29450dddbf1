{#-
    Generic data test on a subscription member's target (SPEC §7): the rows by which it differs
    from a consistent snapshot of its source at its synchpoint (lakerep_target_diff_rows), the same
    comparison as `lakerep diff`. Nothing to compare (lakerep_diff_subject says why: a target that
    cannot be compared, a model not built yet, no synchpoint or no such snapshot landed): no rows.
    That is looked up first, so a `dbt build` without a snapshot to compare pays two small
    queries per target, not a diff (and lakerep_has_a_snapshot_to_compare, which warns then,
    two more).
    Argument: target_table — the member's target (the model tested).
-#}
{% test lakerep_matches_source_snapshot(model, target_table) %}

{%- set nothing = 'select cast(null as string) as difference where false' -%}
{%- if not execute -%}
    {#- Parsing: declare every model the comparison reads. -#}
    {%- for model_name in lakerep_diff_inputs(target_table) %}
-- depends_on: {{ ref(model_name) }}
    {%- endfor %}
{{ nothing }}
{%- else -%}
    {%- set subject = lakerep_diff_subject(target_table) -%}
{{ nothing if subject.why_not else lakerep_target_diff_rows(target_table, subject.snapshot_id) }}
{%- endif %}

{% endtest %}
