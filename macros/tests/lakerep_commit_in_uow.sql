{#-
    Generic data test: every row's commit position (the column tested) is a UOW that `to` (the UOW
    table) holds, among the UOWs it still holds. A prune deletes UOWs from the oldest up (at or
    below the members' lowest SYNCHPOINT, or older than RETENTION_LIMIT) and a cold start empties
    the table, while a CCD keeps its history: rows committed before the oldest UOW held are not
    asked about. dbt's `relationships` test asks about every row, so it failed on every lake
    pruned once, and stopped a session's next cycle with data tests.
    Arguments: to — the UOW table (ref('uow')).
-#}
{% test lakerep_commit_in_uow(model, column_name, to) %}

with

held as (
    select IBMSNAP_COMMITSEQ from {{ to }}
),

oldest as (
    select min(IBMSNAP_COMMITSEQ) as oldest_held from held
),

orphans as (
    select changes.{{ column_name }}
    from {{ model }} as changes
    cross join oldest
    left join held on changes.{{ column_name }} = held.IBMSNAP_COMMITSEQ
    where
        changes.{{ column_name }} >= oldest.oldest_held
        and held.IBMSNAP_COMMITSEQ is null
)

select * from orphans

{% endtest %}
