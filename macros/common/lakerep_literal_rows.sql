{#-
    SQL of rows given as literals: a select per row, `union all`, each value cast to its column's
    type, after an empty row that gives the columns their types when there are no rows. For what
    an invocation has already read (the plan, the capture window, the register): Spark would plan
    a view of the control tables again in every statement that names it.
    Arguments: columns — (name, Spark type) pairs; rows — dicts by column name (a missing key is
    null).
-#}
{% macro lakerep_literal_rows(columns, rows) %}
        select
            {%- for name, data_type in columns %}
            cast(null as {{ data_type }}) as {{ name }}{{ ',' if not loop.last }}
            {%- endfor %}
        where false
    {%- for row in rows %}
        union all
        select
            {%- for name, data_type in columns %}
                {%- set value = row.get(name) %}
            cast({{ lakerep_string_literal(none if value is none else value | string) }} as {{ data_type }})
                {{- ',' if not loop.last }}
            {%- endfor %}
    {%- endfor %}
{% endmacro %}
