{#-
    dbt-spark's view materialization, except that a view already defined as this invocation
    would define it is kept: no `create or replace view`, no contract query (issue 21: the 13
    views cost a statement each in every cycle, and those with a contract a second one, for a
    definition that had not changed). A view is kept when it exists as a view, the model has no
    hooks, the run is not a full refresh, and the view's property lakerep_definition holds the
    md5 of its compiled SQL and description (_lakerep_view_definition). A view it creates gets
    that property and SCHEMA EVOLUTION, so a `select *` follows the columns of the relations it
    reads: a kept view never shows a stale column list.
-#}
{% materialization view, adapter='spark' -%}
    {%- if _lakerep_view_is_current() -%}
        {{ log(this ~ ': view definition unchanged, kept') }}
        {%- call noop_statement('main', 'KEPT unchanged view', 'KEPT', 0) -%}{%- endcall -%}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {%- set result = create_or_replace_view() -%}
    {%- call statement('lakerep_view_schema_evolution') -%}
        alter view {{ this }} with schema evolution
    {%- endcall -%}
    {%- call statement('lakerep_view_definition') -%}
        alter view {{ this }} set tblproperties ('lakerep_definition' = '{{ _lakerep_view_definition() }}')
    {%- endcall -%}
    {{ return(result) }}
{%- endmaterialization %}


{#- Whether the view now materializing exists with the definition it would be created with. -#}
{% macro _lakerep_view_is_current() %}
    {#- the flag, not the model's config: no model of the project takes a full refresh, but a
        view holds no rows, and --full-refresh creates it again -#}
    {%- if flags.FULL_REFRESH or pre_hooks or post_hooks -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set relation = load_cached_relation(this) -%}
    {{ return(
        relation is not none
        and relation.is_view
        and ('lakerep_definition=' ~ _lakerep_view_definition()) in (relation.information or '')
    ) }}
{% endmacro %}


{#- The md5 of what defines the view now materializing: its compiled SQL and its description. -#}
{% macro _lakerep_view_definition() %}
    {{ return(local_md5(sql ~ '\n-- ' ~ (model.description or ''))) }}
{% endmacro %}
