{#-
    What may have something to write this cycle, decided before a per-table model sends any
    statement (lakerep_writes_this_cycle). The relations are resolved by name, not ref: the
    models that ask (CD, CCD, member change and target models) do not all ref them, and they
    all run after them in the DAG.
-#}


{#-
    The registered tables ("OWNER.TABLE") that may have something to write this capture cycle,
    read once per invocation: a log record of theirs that the cycle reads (lakerep_in_session_read,
    the union of every source's read), or at or above the previous resync position (a change of a
    UOW still open when the previous cycle ended, which may commit now: the same bound
    lakerep_committed_changes reads), or a snapshot row landed in the window (a complete CCD
    takes it). A table outside it gets no CD row, no CCD row and no change for a member that was
    up to date.
-#}
{% macro lakerep_tables_in_cycle() %}
    {%- set window = _lakerep_cycle_window() -%}
    {%- set log = lakerep_control_relation('stg_source_log', schema='staging') -%}
    {%- set snapshots = lakerep_control_relation('stg_source_snapshot', schema='staging') -%}
    {%- set query -%}
        select distinct concat(source_owner, '.', source_table) as source
        from {{ log }}
        where
            is_registered_table
            and (
                {{ lakerep_in_session_read(window) }}
                or log_position >= {{ lakerep_string_literal(window.previous_resync_position) }}
            )
        union
        select distinct concat(source_owner, '.', source_table) as source
        from {{ snapshots }}
        where {{ lakerep_in_capture_window(window) }}
    {%- endset -%}
    {{ return(lakerep_rows_once(query) | map(attribute='source') | list) }}
{% endmacro %}


{#- Whether one registered table's CD or CCD model may write this cycle: a cold start empties them. -#}
{% macro lakerep_table_changes_this_cycle(source) %}
    {{ return(_lakerep_cycle_window().cold_start or source in lakerep_tables_in_cycle()) }}
{% endmacro %}


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
    {%- set window = _lakerep_cycle_window() -%}
    {%- if window.cold_start or window.reread_from is not none -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set member = lakerep_member(target_table) -%}
    {%- if member.source_owner ~ '.' ~ member.source_table in lakerep_tables_in_cycle() -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set previous = _lakerep_previous_capture_synchpoint(window) -%}
    {{ return(previous is none or plan.fetch_after < previous) }}
{% endmacro %}


{% macro _lakerep_cycle_window() %}
    {{ return(lakerep_capture_window(lakerep_control_relation('capture_window'))) }}
{% endmacro %}


{#- Capture's synchpoint after the cycle before the current one (none before the second cycle). -#}
{% macro _lakerep_previous_capture_synchpoint(window) %}
    {%- set rows = lakerep_rows_once(
        'select max_by(synchpoint, cycle_number) as synchpoint from '
        ~ lakerep_control_relation('capture_cycles')
        ~ ' where cycle_number < ' ~ window.cycle_number
    ) -%}
    {{ return(rows[0].synchpoint if rows | length == 1 else none) }}
{% endmacro %}
