{#- A Debezium time (microseconds, or milliseconds when the event has no ts_us) as log text. -#}
{% macro lakerep_debezium_time(microseconds) -%}
    date_format(timestamp_micros({{ microseconds }}), 'yyyy-MM-dd HH:mm:ss.SSSSSS')
{%- endmacro %}
