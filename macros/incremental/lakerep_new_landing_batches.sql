{#-
    Filter for an incremental model fed by landing batches: keeps the rows of batches above the
    highest batch the model already holds. New rows are found by landing batch, never by log
    position, because landing order is not log order. Renders nothing on a first build.
    Arguments: column — the landing batch column of the rows being filtered.
-#}
{% macro lakerep_new_landing_batches(column='landing_batch') -%}
    {%- if is_incremental() -%}
        {{ column }} > (select coalesce(max(processed.landing_batch), -1) from {{ this }} as processed)
    {%- else -%}
        true
    {%- endif -%}
{%- endmacro %}
