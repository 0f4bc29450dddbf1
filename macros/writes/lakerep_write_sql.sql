{#-
    The statement of one write (lakerep_write_as's modes), naming the contract's columns, so no
    describe of the table or of the model's rows is needed.
    Arguments: relation — the table; sql — the model's compiled SQL; write — lakerep_model_write().
-#}
{% macro lakerep_write_sql(relation, sql, write) %}
    {%- set names = lakerep_contract_columns() | map(attribute=0) | list -%}
    {%- set column_list -%}{% for name in names %}`{{ name }}`{{ ', ' if not loop.last }}{% endfor %}{%- endset -%}
    {%- if write.mode == 'statement' -%}
        {{ write.statement }}
    {%- elif write.mode in ['append', 'overwrite'] -%}
        insert {{ 'overwrite' if write.mode == 'overwrite' else 'into' }} {{ relation }} ({{ column_list }})
        select {{ column_list }} from (
            {{ sql }}
        ) as model_rows
    {%- elif write.mode == 'merge' -%}
        {%- set conditions = [] -%}
        {%- if write.target_filter -%}
            {%- do conditions.append('(' ~ write.target_filter ~ ')') -%}
        {%- endif -%}
        {%- for key in write.on -%}
            {%- do conditions.append('DBT_INTERNAL_SOURCE.`' ~ key ~ '` <=> DBT_INTERNAL_DEST.`' ~ key ~ '`') -%}
        {%- endfor -%}
        {%- set later = [] -%}
        {%- for column in write.later_by or [] -%}
            {%- set terms = [] -%}
            {%- for earlier in write.later_by[:loop.index0] -%}
                {%- do terms.append('DBT_INTERNAL_SOURCE.' ~ earlier ~ ' = DBT_INTERNAL_DEST.' ~ earlier) -%}
            {%- endfor -%}
            {%- do terms.append('DBT_INTERNAL_SOURCE.' ~ column ~ ' > DBT_INTERNAL_DEST.' ~ column) -%}
            {%- do later.append('(' ~ terms | join(' and ') ~ ')') -%}
        {%- endfor -%}
        merge into {{ relation }} as DBT_INTERNAL_DEST
        using (
            {{ sql }}
        ) as DBT_INTERNAL_SOURCE
        on {{ conditions | join(' and ') }}
        {%- if later %}
        when matched and ({{ later | join(' or ') }}) then update set
            {%- for name in names %}
            `{{ name }}` = DBT_INTERNAL_SOURCE.`{{ name }}`{{ ',' if not loop.last }}
            {%- endfor %}
        {%- endif %}
        when not matched then insert ({{ column_list }})
            values ({% for name in names %}DBT_INTERNAL_SOURCE.`{{ name }}`{{ ', ' if not loop.last }}{% endfor %})
    {%- endif -%}
{% endmacro %}
