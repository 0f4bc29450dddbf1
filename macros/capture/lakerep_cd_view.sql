{#-
    Body of the change data (CD) view of one registered table (SPEC §3): the table's rows of the
    captured log, one per captured row change of committed and still-open UOWs, typed as its
    registration says (ADR 0011: the rows of every table share one Delta table, and a table that
    gains a column needs no rewrite). User columns hold the row after the change (for a delete,
    the deleted row); before-image columns (registered prefix + name) hold the row before it.
    Arguments: source_owner, source_table — the registered table.
-#}
{% macro lakerep_cd_view(source_owner, source_table) %}
{%- set registration = lakerep_registration(source_owner, source_table) -%}
{%- set prefix = registration.before_image_prefix -%}
select
    IBMSNAP_UOWID,
    IBMSNAP_INTENTSEQ,
    IBMSNAP_OPERATION,
    {%- for column in registration.columns %}
    {{ lakerep_typed_field('user_row', column) }} as `{{ column.name }}`,
    {%- endfor %}
    {%- if prefix is not none %}
    {%- for column in registration.columns %}
    {{ lakerep_typed_field('prior_row', column) }} as `{{ prefix ~ column.name }}`,
    {%- endfor %}
    {%- endif %}
    landing_batch
from (
    select
        *,
        {{ lakerep_parse_image('row_image', registration) }} as user_row
        {%- if prefix is not none %},
        {{ lakerep_parse_image('prior_image', registration) }} as prior_row
        {%- endif %}
    from {{ ref('captured_log') }}
    where
        source_owner = {{ lakerep_string_literal(source_owner) }}
        and source_table = {{ lakerep_string_literal(source_table) }}
        and IBMSNAP_OPERATION in ('I', 'U', 'D')
) as changes
{% endmacro %}
