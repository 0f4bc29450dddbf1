{#-
    The capture cycle now running (the capture_window view), as literals so Delta can skip
    files, read once per invocation: a dict with cycle_number, last_cycle, run_id and
    session_name (of the run that opened the cycle), start_type, after_batch and up_to_batch (the
    landing batches read: after_batch < landing_batch <= up_to_batch), previous_resync_position
    (the begin of the oldest UOW still open when the previous cycle ended), resync_source,
    previous_highest_position, previous_synchpoint and previous_synchtime (Capture's before the
    cycle), cold_start (the captured log is read again
    from the decided tokens, and replaced), decided (the opener's restart decision opens the
    cycle: its first), reread_from (the lowest RESTART1 of the sources that
    read again, or none) and sources: "OWNER.TABLE" -> {restart1, restart2, reread_from,
    restart_rule}. Unit tests override this macro.
-#}
{% macro lakerep_capture_window() %}
    {% set window = {
        'cycle_number': 0,
        'last_cycle': 0,
        'run_id': none,
        'session_name': none,
        'start_type': none,
        'after_batch': 0,
        'up_to_batch': 0,
        'previous_resync_position': lakerep_lowest_position(),
        'resync_source': 'none',
        'previous_highest_position': none,
        'previous_synchpoint': none,
        'previous_synchtime': none,
        'cold_start': false,
        'decided': false,
        'reread_from': none,
        'sources': {},
    } %}
    {% if execute %}
        {#- Every model that asks runs after capture_window (they ref it), and none writes what it reads. -#}
        {% set rows = lakerep_rows_once('select * from ' ~ ref('capture_window')) %}
        {% if rows | length == 0 %}
            {{ exceptions.raise_compiler_error('capture_window holds no source: register a table first') }}
        {% endif %}
        {% for name in [
            'cycle_number', 'last_cycle', 'run_id', 'session_name', 'start_type', 'after_batch', 'up_to_batch',
            'previous_resync_position', 'resync_source', 'previous_highest_position', 'previous_synchpoint',
            'previous_synchtime', 'cold_start', 'decided',
        ] %}
            {% do window.update({name: rows[0][name]}) %}
        {% endfor %}
        {% for row in rows %}
            {% do window.sources.update({row.source_owner ~ '.' ~ row.source_table: {
                'restart1': row.restart1,
                'restart2': row.restart2,
                'reread_from': row.reread_from,
                'restart_rule': row.restart_rule,
            }}) %}
            {% if row.reread_from is not none and (window.reread_from is none or row.reread_from < window.reread_from) %}
                {% do window.update({'reread_from': row.reread_from}) %}
            {% endif %}
        {% endfor %}
    {% endif %}
    {{ return(window) }}
{% endmacro %}
