{#- A Debezium date (days since 1970-01-01, io.debezium.time.Date and Kafka Connect's Date) as
    yyyy-MM-dd text: cast as it stands, such a number would become a year. -#}
{% macro lakerep_debezium_date(days) -%}
    cast(date_add(date'1970-01-01', cast({{ days }} as int)) as string)
{%- endmacro %}
