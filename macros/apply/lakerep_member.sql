{#- One member by its target table; a compile error when no member writes that table. -#}
{% macro lakerep_member(target_table) %}
    {%- for member in lakerep_members() -%}
        {%- if member.target_table == target_table -%}
            {{ return(member) }}
        {%- endif -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error('no member of subscriptions.yml has the target ' ~ target_table) }}
{% endmacro %}
