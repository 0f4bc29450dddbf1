{#- The SET that turns Delta's file skipping on or off for the session's next statements. -#}
{% macro lakerep_file_skipping_sql(enabled) -%}
    set spark.databricks.delta.stats.skipping = {{ 'true' if enabled else 'false' }}
{%- endmacro %}
