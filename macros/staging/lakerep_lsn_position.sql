{#- A WAL position (a bigint LSN) and a row number within its WAL record as a log position. -#}
{% macro lakerep_lsn_position(lsn, row_number='0') -%}
    concat(lpad(hex({{ lsn }}), 16, '0'), lpad(hex({{ row_number }}), 4, '0'))
{%- endmacro %}
