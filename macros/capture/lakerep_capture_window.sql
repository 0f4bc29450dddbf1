{#-
    The capture cycle now running (the highest cycle of capture_window), as literals so Delta
    can skip files: a dict with cycle_number, run_id (of the run that opened the cycle),
    after_batch and up_to_batch (new landing batches:
    after_batch < landing_batch <= up_to_batch), previous_resync_position (the begin of the
    oldest UOW still open when the previous cycle ended), cold_start (discard the CD and UOW rows
    first), reread_from (the lowest RESTART1 of the sources that read again, or none) and
    sources: "OWNER.TABLE" -> {restart1, restart2, reread_from}. Unit tests override this macro.
    Argument: relation — capture_window, resolved by the caller when the model calling does not
    ref it (default: ref('capture_window')).
-#}
{% macro lakerep_capture_window(relation=none) %}
    {% set window = {
        'cycle_number': 0,
        'run_id': none,
        'after_batch': 0,
        'up_to_batch': 0,
        'previous_resync_position': lakerep_lowest_position(),
        'cold_start': false,
        'reread_from': none,
        'sources': {},
    } %}
    {% set relation = relation if relation is not none else ref('capture_window') %}
    {% if execute %}
        {#- Every model that asks runs after capture_window (they ref it), and nothing else writes it. -#}
        {% set rows = lakerep_rows_once(
            'select * from ' ~ relation ~ ' where cycle_number = (select max(cycle_number) from ' ~ relation ~ ')'
        ) %}
        {% if rows | length == 0 %}
            {{ exceptions.raise_compiler_error('capture_window holds no cycle') }}
        {% endif %}
        {% for name in ['cycle_number', 'run_id', 'after_batch', 'up_to_batch', 'previous_resync_position', 'cold_start'] %}
            {% do window.update({name: rows[0][name]}) %}
        {% endfor %}
        {% for row in rows %}
            {% do window.sources.update({row.source_owner ~ '.' ~ row.source_table: {
                'restart1': row.restart1,
                'restart2': row.restart2,
                'reread_from': row.reread_from,
            }}) %}
            {% if row.reread_from is not none and (window.reread_from is none or row.reread_from < window.reread_from) %}
                {% do window.update({'reread_from': row.reread_from}) %}
            {% endif %}
        {% endfor %}
    {% endif %}
    {{ return(window) }}
{% endmacro %}
