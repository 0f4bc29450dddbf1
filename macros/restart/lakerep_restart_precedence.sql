{#-
    Restart token precedence (SPEC §4; PowerExchange seed 000 for warm start, 001 for cold
    start): SQL expressions over one row per source of restart_candidates plus the session-wide
    columns restart_decisions adds (oldest_available, oldest_supplied, session_has_state).
    use_state is a SQL boolean: false for the cold variant, where the state is treated as empty.
    A token pair is compared as one string, RESTART1 then RESTART2 (both fixed-width hex), so
    "oldest" is the smallest concatenation.
-#}

{#- SQL: the rule that chooses the source's tokens. -#}
{% macro lakerep_restart_rule(use_state) -%}
    case
        when explicit_restart1 is not null then 'explicit override'
        when special_restart1 = 'CURRENT_RESTART' or special_restart2 = 'CURRENT_RESTART' then 'current restart'
        when special_restart1 is not null then 'special override'
        when ({{ use_state }}) and state_restart1 is not null then 'state'
        when ({{ use_state }}) and session_has_state then 'oldest available'
        when oldest_supplied is not null then 'oldest supplied'
        else 'null tokens'
    end
{%- endmacro %}


{#- SQL: RESTART1 (token = 'restart1') or RESTART2 (token = 'restart2') chosen by `rule`. -#}
{% macro lakerep_restart_token(rule, token) -%}
    {%- set offset = 1 if token == 'restart1' else 21 -%}
    case {{ rule }}
        when 'explicit override' then explicit_{{ token }}
        when 'current restart' then {{ lakerep_current_restart('special_' ~ token) }}
        when 'special override' then special_{{ token }}
        when 'state' then state_{{ token }}
        when 'oldest available' then substr(oldest_available, {{ offset }}, 20)
        when 'oldest supplied' then substr(oldest_supplied, {{ offset }}, 20)
        else {{ lakerep_null_token(token) }}
    end
{%- endmacro %}


{#- SQL: a special override value, CURRENT_RESTART resolved to the end of the log at session start. -#}
{% macro lakerep_current_restart(column) -%}
    case when {{ column }} = 'CURRENT_RESTART' then {{ lakerep_null_token('end') }} else {{ column }} end
{%- endmacro %}


{#-
    SQL: null tokens mean "no restart point": read from the oldest position still in the log
    (RESTART1) and skip no UOW (RESTART2). token 'end' is the current end of the log.
-#}
{% macro lakerep_null_token(token) -%}
    {%- if token == 'restart1' -%}
        coalesce(log_oldest_position, '{{ lakerep_lowest_position() }}')
    {%- elif token == 'restart2' -%}
        '{{ lakerep_lowest_position() }}'
    {%- else -%}
        coalesce(log_end_position, '{{ lakerep_lowest_position() }}')
    {%- endif -%}
{%- endmacro %}


{#- The lowest log position: below every real one. -#}
{% macro lakerep_lowest_position() -%}
    00000000000000000000
{%- endmacro %}
