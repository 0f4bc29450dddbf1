{#-
    SQL: a Debezium value (text) of a field whose schema names a logical type, as the source log
    carries it; null when the type has no mapping here or the value is not of its form (the value
    then stays as it is, for validation to judge). Times are wall-clock times, written in the
    session's time zone (UTC, the profile's), as the PostgreSQL source writes them:
    - io.debezium.time.Date and Kafka Connect's Date: days since 1970-01-01, as yyyy-MM-dd;
    - io.debezium.time.Timestamp and Kafka Connect's Timestamp (milliseconds), MicroTimestamp and
      NanoTimestamp, as yyyy-MM-dd HH:mm:ss.SSSSSS;
    - io.debezium.time.Time and Kafka Connect's Time (milliseconds), MicroTime and NanoTime, as
      PostgreSQL writes a time: HH:mm:ss, and the fraction without trailing zeros;
    - Kafka Connect's Decimal (decimal.handling.mode=precise): base64 of the unscaled value, the
      scale from the schema (lakerep_debezium_decimal).
    Arguments: value — SQL of the value; value_type — SQL of its field's struct<logical, scale>.
-#}
{% macro lakerep_debezium_value(value, value_type) -%}
    case
        when {{ value }} is null or {{ value_type }} is null then null
        when {{ value_type }}.logical = 'org.apache.kafka.connect.data.Decimal'
            then {{ lakerep_debezium_decimal(value, value_type ~ '.scale') }}
        when not {{ value }} rlike '^-?[0-9]{1,19}$' then null
        when {{ value_type }}.logical in ('io.debezium.time.Date', 'org.apache.kafka.connect.data.Date')
            then {{ lakerep_debezium_date(value) }}
        when {{ value_type }}.logical in ('io.debezium.time.Timestamp', 'org.apache.kafka.connect.data.Timestamp')
            then {{ lakerep_debezium_time('cast(' ~ value ~ ' as bigint) * 1000') }}
        when {{ value_type }}.logical = 'io.debezium.time.MicroTimestamp'
            then {{ lakerep_debezium_time('cast(' ~ value ~ ' as bigint)') }}
        when {{ value_type }}.logical = 'io.debezium.time.NanoTimestamp'
            then {{ lakerep_debezium_time('floor(cast(' ~ value ~ ' as bigint) / 1000)') }}
        when {{ value_type }}.logical in ('io.debezium.time.Time', 'org.apache.kafka.connect.data.Time')
            then {{ _lakerep_debezium_time_of_day('cast(' ~ value ~ ' as bigint) * 1000') }}
        when {{ value_type }}.logical = 'io.debezium.time.MicroTime'
            then {{ _lakerep_debezium_time_of_day('cast(' ~ value ~ ' as bigint)') }}
        when {{ value_type }}.logical = 'io.debezium.time.NanoTime'
            then {{ _lakerep_debezium_time_of_day('floor(cast(' ~ value ~ ' as bigint) / 1000)') }}
    end
{%- endmacro %}


{#- A time of day (microseconds since midnight) as PostgreSQL writes it: midnight at the end of
    a day, which PostgreSQL's time holds, is 24:00:00 (a timestamp would make it 00:00:00). -#}
{% macro _lakerep_debezium_time_of_day(microseconds) -%}
    case
        when {{ microseconds }} = 86400000000 then '24:00:00'
        else regexp_replace(date_format(timestamp_micros({{ microseconds }}), 'HH:mm:ss.SSSSSS'), '\\.?0+$', '')
    end
{%- endmacro %}
