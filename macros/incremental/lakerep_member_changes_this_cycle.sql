{#-
    Whether one member may change its target this cycle: its plan loads a snapshot or a refresh
    window (REFRESH, EXTERNAL_REFRESH), or it mirrors (and its set applies) with changes of its
    source possibly committed in its fetch window. Such changes exist only if the source is among
    lakerep_tables_in_cycle, or the member fetches from before the synchpoint the previous capture
    cycle reached (a member behind: a cut-off or stopped cycle), or the window reads again (a
    cold start, or restart tokens moved back).
-#}
{% macro lakerep_member_changes_this_cycle(target_table) %}
    {%- set plan = lakerep_member_plan(target_table) -%}
    {%- if plan.action in ['REFRESH', 'EXTERNAL_REFRESH'] -%}
        {{ return(true) }}
    {%- elif plan.action != 'MIRROR' or plan.set_action != 'APPLY' -%}
        {#- WAIT and GAP_ERROR fetch nothing, nor does a member of a set that does not apply. -#}
        {{ return(false) }}
    {%- endif -%}
    {%- set window = lakerep_cycle_window() -%}
    {%- set tables = lakerep_tables_in_cycle() -%}
    {%- if tables is none or window.cold_start or window.reread_from is not none -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set member = lakerep_member(target_table) -%}
    {%- if member.source_owner ~ '.' ~ member.source_table in tables -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set previous = _lakerep_previous_capture_synchpoint(window) -%}
    {{ return(previous is none or plan.fetch_after < previous) }}
{% endmacro %}


{#- Capture's synchpoint after the cycle before the current one (none before the second cycle). -#}
{% macro _lakerep_previous_capture_synchpoint(window) %}
    {%- set cycles = lakerep_control_relation('capture_cycles') -%}
    {%- if cycles is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set rows = lakerep_rows_once(
        'select max_by(synchpoint, cycle_number) as synchpoint from ' ~ cycles
        ~ ' where cycle_number < ' ~ window.cycle_number
    ) -%}
    {{ return(rows[0].synchpoint if rows | length == 1 else none) }}
{% endmacro %}
