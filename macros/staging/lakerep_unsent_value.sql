{#-
    The text a row image holds for a column whose value its source did not send because the
    change left it as it was: Debezium's unavailable.value.placeholder as it ships, which
    lakerep's own PostgreSQL reader also writes for a TOASTed value an update did not change
    (lakerep/sources/pgoutput.py). Staging fills it from the row's last image the lake holds
    (int_log_records_judged). Returns a Jinja string.
-#}
{% macro lakerep_unsent_value() -%}
    {{ return('__debezium_unavailable_value') }}
{%- endmacro %}
