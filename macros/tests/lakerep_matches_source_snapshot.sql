{#-
    Generic data test on a subscription member's target (SPEC §7): the rows by which it differs
    from a consistent snapshot of its source at its synchpoint (lakerep_target_diff_rows), the same
    comparison as `lakerep diff`. Nothing to compare, no rows: a target that cannot be compared
    (lakerep_target_comparable), the target or the apply state not built yet
    (lakerep_diff_inputs_missing), or no such snapshot landed. These are looked up first, so a
    `dbt build` without a snapshot to compare pays two small queries per target, not a diff.
    Argument: target_table — the member's target (the model tested).
-#}
{% test lakerep_matches_source_snapshot(model, target_table) %}

{%- set nothing = 'select cast(null as string) as difference where false' -%}
{#- A target that cannot be compared reads nothing (its test has no other parent). -#}
{%- if not lakerep_target_comparable(lakerep_member(target_table)).comparable -%}
{{ nothing }}
{%- elif not execute -%}
{{ lakerep_target_diff_rows(target_table, lakerep_target_synchpoint(target_table)) }}
{%- elif lakerep_diff_inputs_missing(target_table) -%}
{{ nothing }}
{%- else -%}
    {%- set position = lakerep_target_position(target_table) -%}
    {%- if position is none or lakerep_consistent_snapshot(target_table, position) is none -%}
{{ nothing }}
    {%- else -%}
{{ lakerep_target_diff_rows(target_table, lakerep_string_literal(position)) }}
    {%- endif -%}
{%- endif %}

{% endtest %}
