{#-
    SQL of the capture window's rows, one per registered source, from the literals of
    lakerep_capture_window(): a model that needs them per source reads no view (the window view
    reads the control tables, and Spark would plan it again in every statement that names it).
    Columns: cycle_number, session_name, run_id, start_type, after_batch, up_to_batch,
    previous_synchpoint, previous_synchtime, source_owner, source_table, restart1, restart2,
    restart_rule, reread_from. A source the window does not name starts from the lowest position.
    Argument: window — lakerep_capture_window().
-#}
{% macro lakerep_capture_window_rows(window) %}
    {%- set columns = [
        ('cycle_number', 'bigint'), ('session_name', 'string'), ('run_id', 'string'),
        ('start_type', 'string'), ('after_batch', 'bigint'), ('up_to_batch', 'bigint'),
        ('previous_synchpoint', 'string'), ('previous_synchtime', 'timestamp'),
        ('source_owner', 'string'), ('source_table', 'string'), ('restart1', 'string'),
        ('restart2', 'string'), ('restart_rule', 'string'), ('reread_from', 'string'),
    ] -%}
    {%- set rows = [] -%}
    {%- for registration in lakerep_registrations() %}
        {%- set source = lakerep_source_window(window, registration) %}
        {%- do rows.append({
            'cycle_number': window.cycle_number, 'session_name': window.session_name,
            'run_id': window.run_id, 'start_type': window.start_type,
            'after_batch': window.after_batch, 'up_to_batch': window.up_to_batch,
            'previous_synchpoint': window.previous_synchpoint,
            'previous_synchtime': window.previous_synchtime,
            'source_owner': registration.source_owner, 'source_table': registration.source_table,
            'restart1': source.restart1, 'restart2': source.restart2,
            'restart_rule': source.get('restart_rule'), 'reread_from': source.reread_from,
        }) -%}
    {%- endfor %}
    {{- lakerep_literal_rows(columns, rows) }}
{% endmacro %}
