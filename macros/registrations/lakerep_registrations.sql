{#-
    The registered source tables: a list of dicts with source_owner, source_table, key_columns,
    columns ({name, data_type}), before_image_prefix, key_updates_as_delete_insert,
    ccd_condensed, ccd_complete, disable_refresh. The declaration is
    models/staging/_registrations__sources.yml; `lakerep scaffold` turns it into
    lakerep_registration_declarations() (macros/generated/), which is available at parse time.
-#}
{% macro lakerep_registrations() %}
    {{ return(lakerep_registration_declarations()) }}
{% endmacro %}
