{#- Unsets one of the session's transaction identifiers: setting is txnAppId or txnVersion. -#}
{% macro lakerep_idempotent_append_reset_sql(setting) -%}
    reset spark.databricks.delta.write.{{ setting }}
{%- endmacro %}
