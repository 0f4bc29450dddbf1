{#-
    The warm-start table's lowest SEQ (the begin of the oldest UOW still in flight, or the
    highest position read when none is), one query at compile time; none when it has no row.
-#}
{% macro lakerep_oldest_in_flight_seq(warm_start) %}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(run_query('select min(SEQ) from ' ~ warm_start).rows[0][0]) }}
{% endmacro %}
