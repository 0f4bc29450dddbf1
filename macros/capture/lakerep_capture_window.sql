{#-
    The landing batches this capture cycle reads, and what the previous cycle left behind, as
    literals (so Delta can skip files): a dict with cycle_number, after_batch, up_to_batch (the cycle
    reads after_batch < landing_batch <= up_to_batch) and previous_resync_position (the begin of
    the oldest UOW still open when the previous cycle ended: CD rows of the UOWs that commit
    in this cycle are at or above it, or landed in this cycle). Read from the capture_window
    model; unit tests override this macro.
-#}
{% macro lakerep_capture_window() %}
    {% set window = {
        'cycle_number': 0,
        'after_batch': 0,
        'up_to_batch': 0,
        'previous_resync_position': '00000000000000000000',
    } %}
    {% set relation = ref('capture_window') %}
    {% if execute %}
        {% set rows = run_query('select * from ' ~ relation).rows %}
        {% if rows | length != 1 %}
            {{ exceptions.raise_compiler_error('capture_window must hold exactly one row, found ' ~ rows | length) }}
        {% endif %}
        {% for name in window %}
            {% do window.update({name: rows[0][name]}) %}
        {% endfor %}
    {% endif %}
    {{ return(window) }}
{% endmacro %}


{#- SQL predicate: the landing batch column is inside the capture window. -#}
{% macro lakerep_in_capture_window(window, column='landing_batch') -%}
    ({{ column }} > {{ window.after_batch }} and {{ column }} <= {{ window.up_to_batch }})
{%- endmacro %}
