{#- SQL: RESTART1 (token = 'restart1') or RESTART2 (token = 'restart2') chosen by `rule`. -#}
{% macro lakerep_restart_token(rule, token) -%}
    {%- set offset = 1 if token == 'restart1' else 21 -%}
    case {{ rule }}
        when 'explicit override' then explicit_{{ token }}
        when 'current restart' then {{ _lakerep_current_restart('special_' ~ token) }}
        when 'special override' then special_{{ token }}
        when 'state' then state_{{ token }}
        when 'oldest available' then substr(oldest_available, {{ offset }}, 20)
        when 'oldest supplied' then substr(oldest_supplied, {{ offset }}, 20)
        else {{ _lakerep_null_token(token) }}
    end
{%- endmacro %}


{#- SQL: a special override value, CURRENT_RESTART resolved to the end of the log at session start. -#}
{% macro _lakerep_current_restart(column) -%}
    case when {{ column }} = 'CURRENT_RESTART' then {{ _lakerep_null_token('end') }} else {{ column }} end
{%- endmacro %}


{#-
    SQL: null tokens mean "no restart point": read from the oldest position still in the log
    (RESTART1) and skip no UOW (RESTART2). token 'end' is the current end of the log.
-#}
{% macro _lakerep_null_token(token) -%}
    {%- if token == 'restart1' -%}
        coalesce(log_oldest_position, '{{ lakerep_lowest_position() }}')
    {%- elif token == 'restart2' -%}
        '{{ lakerep_lowest_position() }}'
    {%- else -%}
        coalesce(log_end_position, '{{ lakerep_lowest_position() }}')
    {%- endif -%}
{%- endmacro %}
