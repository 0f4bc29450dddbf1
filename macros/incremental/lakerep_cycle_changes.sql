{#-
    What may have something to write this cycle: decided before a per-table model sends any
    statement (lakerep_writes_this_cycle), and by the control models that read every table or
    member (so a cycle costs what its changes cost, not what is registered: issue 21). The
    relations are resolved by name, not ref: the models that ask do not all ref them, and they
    all run after them in the DAG.
-#}


{#-
    The registered tables ("OWNER.TABLE") that may have something to write this capture cycle
    (lakerep_cycle_reads), or none when a relation it reads is not built: then every table may
    change. A table outside it gets no CD row, no CCD row and no change for a member that was up
    to date.
-#}
{% macro lakerep_tables_in_cycle() %}
    {%- set reads = lakerep_cycle_reads() -%}
    {{ return(none if reads is none else reads | map(attribute='source') | unique | list) }}
{% endmacro %}


{#-
    What the capture cycle reads of each registered table, read once per invocation: one row
    per table and kind with its lowest position (source, lowest_position). A table is there with
    a log record of its that the cycle reads (lakerep_in_session_read, the union of every
    source's read), or one at or above the previous resync position whose UOW commits in the
    records the cycle reads (a change of a UOW still open when the previous cycle ended, which
    commits now: the same bound lakerep_committed_changes reads), or a snapshot row landed in
    the window (a complete CCD takes it, at the unload start position). A UOW that stays open
    keeps no table in the cycle: its changes are in CD already, and nothing of it reaches a CCD
    or a member before its commit is read. A cycle that reads again from restart tokens keeps
    every change at or above the previous resync position. None when a relation it reads is
    not built.
-#}
{% macro lakerep_cycle_reads() %}
    {%- set window = _lakerep_cycle_window() -%}
    {%- set log = lakerep_control_relation('stg_source_log', schema='staging') -%}
    {%- set snapshots = lakerep_control_relation('stg_source_snapshot', schema='staging') -%}
    {%- if window is none or log is none or snapshots is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set query -%}
        select concat(source_owner, '.', source_table) as source, min(log_position) as lowest_position
        from {{ log }}
        where
            is_registered_table
            and (
                {{ lakerep_in_session_read(window) }}
                or (
                    log_position >= {{ lakerep_string_literal(window.previous_resync_position) }}
                    {%- if window.get('reread_from') is none %}
                    and uow_id in (
                        select uow_id from {{ log }}
                        where record_type = 'C' and {{ lakerep_in_session_read(window) }}
                    )
                    {%- endif %}
                )
            )
        group by source_owner, source_table
        union all
        select concat(source_owner, '.', source_table) as source, min(unload_start_position) as lowest_position
        from {{ snapshots }}
        where {{ lakerep_in_capture_window(window) }}
        group by source_owner, source_table
    {%- endset -%}
    {{ return(lakerep_rows_once(query)) }}
{% endmacro %}


{#- Whether one registered table's CD or CCD model may write this cycle: a cold start empties them. -#}
{% macro lakerep_table_changes_this_cycle(source) %}
    {%- set tables = lakerep_tables_in_cycle() -%}
    {{ return(tables is none or _lakerep_cycle_window().cold_start or source in tables) }}
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


{#-
    Whether a control model that reads every registered table (capture_cycles, register) reads
    this one in this cycle: a table outside lakerep_tables_in_cycle has nothing in the cycle, so
    the model writes its part as literals, without touching its tables (issue 21: each Delta
    table a statement touches costs a catalog lookup and a snapshot). Always at parse time, so
    the model's refs are all known.
-#}
{% macro lakerep_reads_table_this_cycle(source_owner, source_table) %}
    {{ return(not execute or lakerep_table_changes_this_cycle(source_owner ~ '.' ~ source_table)) }}
{% endmacro %}


{#- The same for a member's change model (apply_set_status, apply_exceptions, apply_trail read them). -#}
{% macro lakerep_reads_member_this_cycle(target_table) %}
    {{ return(not execute or lakerep_member_changes_this_cycle(target_table)) }}
{% endmacro %}


{#- The capture window (lakerep_capture_window), or none before capture_window is built. -#}
{% macro _lakerep_cycle_window() %}
    {%- set relation = lakerep_control_relation('capture_window') -%}
    {{ return(lakerep_capture_window(relation) if relation is not none else none) }}
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
