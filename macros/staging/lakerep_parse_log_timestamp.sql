{#-
    The source log's text timestamp as a timestamp; null when it is not one. Date and time
    apart by a space or ISO's `T`, up to six decimal places (PostgreSQL drops trailing zeros),
    and an optional zone offset as real logs write it (`+00`, `+05:30`, `-0800`, `Z`: SPEC §2.1),
    normalised to UTC; without an offset the time is UTC already (the session's time zone).
-#}
{% macro lakerep_parse_log_timestamp(column) -%}
    coalesce(
        try_to_timestamp({{ column }}, "yyyy-MM-dd HH:mm:ss[.SSSSSS][XXX][XX][X]"),
        try_to_timestamp({{ column }}, "yyyy-MM-dd'T'HH:mm:ss[.SSSSSS][XXX][XX][X]")
    )
{%- endmacro %}
