{#-
    The retention cutoff of a prune (SPEC §6), as a string: RETENTION_LIMIT minutes (var
    retention_limit) before `synchtime`, Capture's SYNCHTIME; changes logged before it are pruned
    whoever still needs them. The var must be a whole number of minutes from 0 to what a timedelta
    holds: an integer, or a string of digits (as --vars may give it). Anything else is a compile
    error naming the var and its value, never what Jinja's int filter makes of it (0 for "abc":
    every retained change pruned). A limit reaching back past the first representable time keeps
    everything: the cutoff is that time.
-#}
{% macro lakerep_retention_cutoff(synchtime) %}
    {%- set limit = var('retention_limit') -%}
    {%- set minute = modules.datetime.timedelta(minutes=1) -%}
    {%- set most = modules.datetime.timedelta.max // minute -%}
    {%- set whole = limit is integer or (limit is string and modules.re.fullmatch('[0-9]+', limit)) -%}
    {%- if not whole or (limit | int) < 0 or (limit | int) > most -%}
        {{ exceptions.raise_compiler_error(
            'var retention_limit must be a whole number of minutes from 0 to ' ~ most ~ ', not ' ~ tojson(limit)
        ) }}
    {%- endif -%}
    {%- set first = synchtime.replace(year=1, month=1, day=1, hour=0, minute=0, second=0, microsecond=0) -%}
    {%- set minutes = [limit | int, (synchtime - first) // minute] | min -%}
    {{ return((synchtime - modules.datetime.timedelta(minutes=minutes)) | string) }}
{% endmacro %}
