{#-
    Body of the internal consistent change data (CCD) view of one registered table (SPEC §3): the
    table's rows of the CCD table, its committed changes in commit order (condensed: the latest
    per key; complete: with the rows of its landed snapshots), typed as its registration says.
    Arguments: source_owner, source_table — the registered table.
-#}
{% macro lakerep_ccd_view(source_owner, source_table) %}
{%- set registration = lakerep_registration(source_owner, source_table) -%}
select
    IBMSNAP_COMMITSEQ,
    IBMSNAP_INTENTSEQ,
    IBMSNAP_OPERATION,
    IBMSNAP_LOGMARKER,
    {%- for column in registration.columns %}
    {{ lakerep_typed_field('ccd_row', column) }} as `{{ column.name }}`{{ ',' if not loop.last }}
    {%- endfor %}
from (
    select
        *,
        {{ lakerep_parse_image('row_image', registration) }} as ccd_row
    from {{ ref('ccd_rows') }}
    where
        source_owner = {{ lakerep_string_literal(source_owner) }}
        and source_table = {{ lakerep_string_literal(source_table) }}
) as changes
{% endmacro %}
