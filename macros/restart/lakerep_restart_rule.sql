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
