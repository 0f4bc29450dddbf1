{#-
    The retention cutoff of a prune (SPEC §6), as a string: RETENTION_LIMIT minutes (var
    retention_limit) before `synchtime`, Capture's SYNCHTIME; changes logged before it are pruned
    whoever still needs them. The var must be a whole number of minutes from 0 to what a timedelta
    holds (lakerep_whole_minutes_var). A limit reaching back past the first representable time keeps
    everything: the cutoff is that time.
-#}
{% macro lakerep_retention_cutoff(synchtime) %}
    {%- set limit = lakerep_whole_minutes_var('retention_limit') -%}
    {%- set minute = modules.datetime.timedelta(minutes=1) -%}
    {%- set first = synchtime.replace(year=1, month=1, day=1, hour=0, minute=0, second=0, microsecond=0) -%}
    {%- set minutes = [limit, (synchtime - first) // minute] | min -%}
    {{ return((synchtime - modules.datetime.timedelta(minutes=minutes)) | string) }}
{% endmacro %}
