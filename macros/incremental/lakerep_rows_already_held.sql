{#-
    SQL of the rows an incremental model already holds (its previous state), or of no rows with
    the same columns on a first build: models that rewrite or check against their own past.
    Arguments: columns — list of [expression over the model's own columns, alias, data type];
    where — filter on the held rows; first_build_from — a relation whose rows a first build takes
    as held (where a lake written by an earlier version kept them), or none.
-#}
{% macro lakerep_rows_already_held(columns, where='true', first_build_from=none) %}
    {%- set held_in = this if is_incremental() else first_build_from %}
    {%- if held_in is not none %}
        select
            {%- for expression, alias, data_type in columns %}
                {{ expression }} as {{ alias }}{{ ',' if not loop.last }}
            {%- endfor %}
        from {{ held_in }}
        where {{ where }}
    {%- else %}
        select
            {%- for expression, alias, data_type in columns %}
                cast(null as {{ data_type }}) as {{ alias }}{{ ',' if not loop.last }}
            {%- endfor %}
        where false
    {%- endif %}
{% endmacro %}
