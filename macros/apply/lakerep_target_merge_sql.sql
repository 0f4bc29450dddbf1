{#-
    The MERGE of a member's target model (config lakerep_member_target): in one statement and
    one Delta commit, it deletes the keys its change model says to delete and merges the
    model's rows (insert, update, load, append) on the stub's unique_key. Its source is the
    model's rows and the change model's delete rows of the cycle, with the same columns (the
    target's) and a flag for the deletes. A key has one row in the change model per cycle (a CCD
    target has no delete rows), so no target row matches two source rows. A cycle cut off and
    run again merges the same rows: a deleted key matches nothing, an inserted one updates to
    the same values.
    Arguments: target — the target relation; source — the model's rows (dbt's temporary view);
    match — the ON condition (spark__get_merge_sql's: the unique key null-safe);
    target_table — the member's target.
-#}
{% macro lakerep_target_merge_sql(target, source, match, target_table) %}
    {%- set columns = adapter.get_columns_in_relation(target) | map(attribute='name') | list -%}
    {%- set column_list -%}
        {% for column in columns %}`{{ column }}`{{ ', ' if not loop.last }}{% endfor %}
    {%- endset -%}
    merge into {{ target }} as DBT_INTERNAL_DEST
    using (
        select {{ column_list }}, false as lakerep_deletes_key from {{ source }}
        union all
        select {{ column_list }}, true as lakerep_deletes_key
        from {{ ref('apply_changes__' ~ target_table) }}
        where
            {{ 'true' if lakerep_member_applies(target_table) else 'false' }}
            and apply_cycle = {{ lakerep_current_apply_cycle() }}
            and row_action = 'delete'
    ) as DBT_INTERNAL_SOURCE
    on {{ match }}
    when matched and DBT_INTERNAL_SOURCE.lakerep_deletes_key then delete
    when matched then update set
        {%- for column in columns %}
        `{{ column }}` = DBT_INTERNAL_SOURCE.`{{ column }}`{{ ',' if not loop.last }}
        {%- endfor %}
    when not matched and not DBT_INTERNAL_SOURCE.lakerep_deletes_key then insert ({{ column_list }})
        values ({% for column in columns %}DBT_INTERNAL_SOURCE.`{{ column }}`{{ ', ' if not loop.last }}{% endfor %})
{% endmacro %}
