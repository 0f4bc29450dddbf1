{#-
    Generic data test: each change of a CCD (the column tested, its commit position) belongs to a
    UOW that `to` (the UOW table) holds, when the change is committed after the register's
    CD_OLD_SYNCHPOINT of the CCD's source. A prune deletes no UOW above any source's
    CD_OLD_SYNCHPOINT (it logs the raise in capture_prune, which the register view reads, before
    it deletes a UOW, past every UOW it deletes by position or by RETENTION_LIMIT), and a cold start raises it past the UOWs it drops, while a
    CCD keeps its history: dbt's `relationships` test asked about every row, so it failed on
    every lake pruned once and stopped a session's next cycle with data tests. A complete CCD's
    snapshot rows (IBMSNAP_INTENTSEQ = IBMSNAP_COMMITSEQ, the unload's start: no change has its
    commit at its own position) are no UOW's and are not asked about.
    Arguments: to — the UOW table; register — the register; source_owner, source_table — the
    CCD's source.
-#}
{% test lakerep_commit_in_uow(model, column_name, to, register, source_owner, source_table) %}

with

pruned_through as (
    select coalesce(max(CD_OLD_SYNCHPOINT), '') as cd_old_synchpoint
    from {{ register }}
    where
        GLOBAL_RECORD = 'N'
        and SOURCE_OWNER = {{ lakerep_string_literal(source_owner) }}
        and SOURCE_TABLE = {{ lakerep_string_literal(source_table) }}
),

orphans as (
    select
        changes.IBMSNAP_INTENTSEQ,
        changes.{{ column_name }}
    from {{ model }} as changes
    cross join pruned_through
    left join {{ to }} as uow on changes.{{ column_name }} = uow.IBMSNAP_COMMITSEQ
    where
        changes.{{ column_name }} > pruned_through.cd_old_synchpoint
        and changes.IBMSNAP_INTENTSEQ != changes.{{ column_name }}
        and uow.IBMSNAP_COMMITSEQ is null
)

select * from orphans

{% endtest %}
