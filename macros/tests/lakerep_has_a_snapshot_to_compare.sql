{#-
    Generic data test on a subscription member's target, of severity warn (SPEC §7): one row
    saying why lakerep_matches_source_snapshot compared nothing (lakerep_diff_subject: a target
    that cannot be compared, a model not built yet, no synchpoint, or no consistent snapshot of
    its source landed at the synchpoint), none when it compared; the reason is logged too. A
    build that compared nothing says so as a warning, never as a silent pass.
    Argument: target_table — the member's target (the model tested).
-#}
{% test lakerep_has_a_snapshot_to_compare(model, target_table) %}

{{ config(severity='warn') }}
{%- if not execute -%}
    {%- for model_name in lakerep_diff_inputs(target_table) %}
-- depends_on: {{ ref(model_name) }}
    {%- endfor %}
select cast(null as string) as not_compared where false
{%- else -%}
    {%- set subject = lakerep_diff_subject(target_table) -%}
    {%- if subject.why_not -%}
        {{ log(target_table ~ ' was not compared with its source: ' ~ subject.why_not, info=True) }}
    {%- endif -%}
select {{ lakerep_string_literal(target_table ~ ' was not compared with its source: ' ~ subject.why_not) }} as not_compared
where {{ 'true' if subject.why_not else 'false' }}
{%- endif %}

{% endtest %}
