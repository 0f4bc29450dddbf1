{#-
    SQL of the given columns of every member's change model in the current Apply cycle, with the
    member's target_table (typed, empty when no member is declared). A member that cannot change
    its target this cycle has no rows in it, and its change model is not read
    (lakerep_reads_member_this_cycle). Arguments: columns — [name, data type] pairs;
    apply_cycle — SQL of the cycle's number (default the literal lakerep_current_apply_cycle();
    a view passes lakerep_latest_apply_cycle()).
-#}
{% macro lakerep_member_change_rows(columns, apply_cycle=none) %}
    {%- set entries = [] -%}
    {%- for entry in lakerep_member_change_models() if lakerep_reads_member_this_cycle(entry.target_table) -%}
        {%- do entries.append(entry) -%}
    {%- endfor -%}
    {% for entry in entries %}
        select
            {{ lakerep_string_literal(entry.target_table) }} as target_table,
            {%- for name, data_type in columns %}
                {{ name }}{{ ',' if not loop.last }}
            {%- endfor %}
        from {{ entry.changes }}
        where apply_cycle = {{ apply_cycle or lakerep_current_apply_cycle() }}
        {{ 'union all' if not loop.last }}
    {% else %}
        select
            cast(null as string) as target_table,
            {%- for name, data_type in columns %}
                cast(null as {{ data_type }}) as {{ name }}{{ ',' if not loop.last }}
            {%- endfor %}
        where false
    {% endfor %}
{% endmacro %}
