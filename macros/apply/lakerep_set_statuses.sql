{#-
    Every set's row of apply_set_status (apply_qual, set_name, status, operational_errors), read
    once per invocation: its readers run after it. Empty at parse time.
-#}
{% macro lakerep_set_statuses() %}
    {%- set relation = ref('apply_set_status') -%}
    {{ return(lakerep_rows_once('select * from ' ~ relation) if execute else []) }}
{% endmacro %}
