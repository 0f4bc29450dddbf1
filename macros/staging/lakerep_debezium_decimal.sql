{#-
    SQL: a decimal as Kafka Connect's JsonConverter writes it (decimal.format BASE64: the unscaled
    value's two's-complement big-endian bytes, in base64) with its scale, as decimal text; null
    when the value is no base64 or the scale is missing or negative. The bytes are added up in a
    decimal(38,0), which holds every value of Spark's widest decimal. A negative value is read
    from its complement: -(complement + 1).
    Arguments: value — SQL of the base64 text; scale — SQL of the scale (an int).
-#}
{% macro lakerep_debezium_decimal(value, scale) -%}
    try_element_at(transform(
        array(hex(try_to_binary({{ value }}, 'base64'))),
        bytes -> case
            when length(bytes) >= 2 and {{ scale }} >= 0
                then {{ _lakerep_decimal_text(_lakerep_signed_bytes('bytes'), scale) }}
        end
    ), 1)
{%- endmacro %}


{#- The signed integer of hex text (two's complement), as a decimal(38,0). -#}
{% macro _lakerep_signed_bytes(bytes) -%}
    {%- set negative = 'substr(' ~ bytes ~ ', 1, 1) >= \'8\'' -%}
    (case when {{ negative }} then -1 else 1 end) * (aggregate(
        sequence(1, length({{ bytes }}) - 1, 2),
        cast(0 as decimal(38, 0)),
        (total, byte_at) -> cast(total * 256 + case
            when {{ negative }} then 255 - cast(conv(substr({{ bytes }}, byte_at, 2), 16, 10) as int)
            else cast(conv(substr({{ bytes }}, byte_at, 2), 16, 10) as int)
        end as decimal(38, 0))
    ) + case when {{ negative }} then 1 else 0 end)
{%- endmacro %}


{#- An unscaled integer (decimal(38,0)) with a scale, as decimal text. -#}
{% macro _lakerep_decimal_text(unscaled, scale) -%}
    try_element_at(transform(array({{ unscaled }}), number -> try_element_at(transform(
        {#- lpad cuts a longer text down to the length: pad only up to one digit before the point #}
        array(lpad(cast(abs(number) as string), greatest(length(cast(abs(number) as string)), {{ scale }} + 1), '0')),
        digits -> concat(
            case when number < 0 then '-' else '' end,
            substr(digits, 1, length(digits) - {{ scale }}),
            case when {{ scale }} > 0 then concat('.', substr(digits, length(digits) - {{ scale }} + 1)) else '' end
        )
    ), 1)), 1)
{%- endmacro %}
