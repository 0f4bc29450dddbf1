{#-
    Generic data test: no two rows share the same values of `columns` (a composite primary key).
    Arguments: columns — list of column names.
-#}
{% test lakerep_unique_combination(model, columns) %}

with

duplicated as (
    select
        {{ columns | join(', ') }},
        count(*) as occurrences
    from {{ model }}
    group by {{ columns | join(', ') }}
    having count(*) > 1
)

select * from duplicated

{% endtest %}
