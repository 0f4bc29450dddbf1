{#-
    What comparing one member's target means now (runs queries): {target_table, comparable,
    position, snapshot_id, why_not}. The position is `at` (default: the target's synchpoint), the
    snapshot the newest consistent one at it. why_not (none when there is something to compare)
    says why not: the target cannot be compared (comparable false), a model it reads is not built
    yet, the set never applied a cycle, or no such snapshot is landed. `lakerep diff` rejects
    (or, comparing every member, skips one that cannot be compared); the data test has nothing
    to compare.
-#}
{% macro lakerep_diff_subject(target_table, at=none) %}
    {%- set member = lakerep_member(target_table) -%}
    {%- set subject = {'target_table': target_table, 'comparable': true, 'position': none, 'snapshot_id': none} -%}
    {%- set comparable = _lakerep_target_comparable(member) -%}
    {%- if not comparable.comparable -%}
        {{ return(dict(subject, comparable=false, why_not=comparable.why_not)) }}
    {%- endif -%}
    {%- set missing = [] -%}
    {%- for model_name in lakerep_diff_inputs(target_table) if load_relation(ref(model_name)) is none -%}
        {%- do missing.append(model_name) -%}
    {%- endfor -%}
    {%- if missing -%}
        {{ return(dict(subject, why_not='not built yet: ' ~ missing | join(', '))) }}
    {%- endif -%}
    {%- set position = (at | upper) if at is not none else run_query(
        'select ' ~ _lakerep_target_synchpoint(target_table) ~ ' as position'
    ).rows[0].position -%}
    {%- if position is none -%}
        {{ return(dict(subject, why_not='its set has never applied a cycle, it has no synchpoint')) }}
    {%- endif -%}
    {%- set snapshot_id = run_query(_lakerep_consistent_snapshot(member, position)).rows[0].snapshot_id -%}
    {%- if snapshot_id is none -%}
        {{ return(dict(subject, position=position, why_not='no consistent snapshot of ' ~ member.source_owner
            ~ '.' ~ member.source_table ~ ' at ' ~ position ~ ' is landed (an unload whose start and end are '
            ~ position ~ ', or an earlier one with no change of the table committed after it up to ' ~ position
            ~ ')')) }}
    {%- endif -%}
    {{ return(dict(subject, position=position, snapshot_id=snapshot_id, why_not=none)) }}
{% endmacro %}


{#- Whether a member's target can be compared with a source snapshot: {comparable, why_not}. -#}
{% macro _lakerep_target_comparable(member) %}
    {%- if member.target_structure == 'ccd' and not member.registration.key_updates_as_delete_insert -%}
        {{ return({'comparable': false, 'why_not': member.target_table ~ ' is a CCD target of ' ~ member.source_owner
            ~ '.' ~ member.source_table ~ ', whose key updates are not captured as delete/insert pairs: its '
            ~ 'history does not give the source rows'}) }}
    {%- endif -%}
    {{ return({'comparable': true, 'why_not': none}) }}
{% endmacro %}


{#-
    SQL of the id of the consistent snapshot of a member's source to compare its target with at
    `position`: of the unloads whose start and end are one position Q, landed and valid, the
    newest (highest Q, then the latest landed) where the source table is as it was at `position`:
    Q is `position`, or no change of the table committed after Q up to `position`, which the
    captured log would show (Q at or after CD_OLD_SYNCHPOINT: nothing after it is pruned). That
    is: Q at or after the newest commit of the table's changes up to `position`, one aggregate,
    so no plan joins every snapshot with every change. An unload taken from a live source, at a
    position of its own, can so be compared once Capture has read past it.
-#}
{% macro _lakerep_consistent_snapshot(member, position) %}
    {%- set captured = ref('captured_log') -%}
    {%- set at = lakerep_string_literal(position) -%}
    with

    pruned_through as (
        select coalesce(max(CD_OLD_SYNCHPOINT), '{{ lakerep_lowest_position() }}') as cd_old_synchpoint
        from {{ ref('register') }}
        where
            GLOBAL_RECORD = 'N'
            and SOURCE_OWNER = {{ lakerep_string_literal(member.source_owner) }}
            and SOURCE_TABLE = {{ lakerep_string_literal(member.source_table) }}
    ),

    newest_commit as (
        select coalesce(max(uow.IBMSNAP_INTENTSEQ), '{{ lakerep_lowest_position() }}') as commitseq
        from {{ captured }} as cd
        inner join {{ captured }} as uow on cd.IBMSNAP_UOWID = uow.IBMSNAP_UOWID
        where
            uow.IBMSNAP_OPERATION = 'C'
            and cd.IBMSNAP_OPERATION != 'C'
            and cd.source_owner = {{ lakerep_string_literal(member.source_owner) }}
            and cd.source_table = {{ lakerep_string_literal(member.source_table) }}
            and uow.IBMSNAP_INTENTSEQ <= {{ at }}
    )

    select max_by(snapshot.snapshot_id, struct(snapshot.unload_start_position, snapshot.landed_at)) as snapshot_id
    from {{ ref('int_snapshot_rows_valid') }} as snapshot
    cross join pruned_through
    cross join newest_commit
    where
        snapshot.source_owner = {{ lakerep_string_literal(member.source_owner) }}
        and snapshot.source_table = {{ lakerep_string_literal(member.source_table) }}
        and snapshot.unload_start_position = snapshot.unload_end_position
        and (
            snapshot.unload_start_position = {{ at }}
            or snapshot.unload_start_position < {{ at }}
            and snapshot.unload_start_position >= pruned_through.cd_old_synchpoint
            and snapshot.unload_start_position >= newest_commit.commitseq
        )
{% endmacro %}


{#-
    SQL of the synchpoint a member's target is at: the latest Apply cycle's synchpoint if its
    set's status is APPLIED (the target was, or is being, brought to it: apply_changes), else
    that of the last committed cycle its set applied (null if none).
-#}
{% macro _lakerep_target_synchpoint(target_table) %}
    coalesce(
        (
            select max(plan.to_synchpoint)
            from {{ ref('apply_changes') }} as plan
            where
                plan.row_action = 'plan'
                and plan.target_table = {{ lakerep_string_literal(target_table) }}
                and plan.set_status = 'APPLIED'
                and plan.apply_cycle = (select max(apply_cycle) from {{ ref('apply_changes') }})
        ),
        (
            select max_by(applied.to_synchpoint, applied.apply_cycle)
            from {{ ref('apply_plan') }} as applied
            where
                applied.target_table = {{ lakerep_string_literal(target_table) }}
                and applied.set_status = 'APPLIED'
                and applied.action in ('MIRROR', 'REFRESH', 'EXTERNAL_REFRESH')
        )
    )
{% endmacro %}
