{#-
    The comparison of a target with its source (SPEC §7): `lakerep diff` runs lakerep_diff, the
    data test lakerep_matches_source_snapshot runs the same rows.

    A target is compared with a consistent snapshot of its source at the target's synchpoint: an
    unload landed in lakerep_raw.source_snapshot whose start and end are one position, that one
    or an earlier one after which the table had no change up to the synchpoint
    (lakerep_consistent_snapshot). A CCD target is compared by the state its history gives: per key its
    latest change, unless that is a delete. That needs key updates captured as delete/insert
    pairs: otherwise an update moving a row to a new key leaves the old key's last change in
    the history, and such a target cannot be compared (lakerep_target_comparable).
-#}


{#- Whether a member's target can be compared with a source snapshot: {comparable, why_not}. -#}
{% macro lakerep_target_comparable(member) %}
    {%- if member.target_structure == 'ccd' and not member.registration.key_updates_as_delete_insert -%}
        {{ return({'comparable': false, 'why_not': member.target_table ~ ' is a CCD target of ' ~ member.source_owner
            ~ '.' ~ member.source_table ~ ', whose key updates are not captured as delete/insert pairs: its '
            ~ 'history does not give the source rows'}) }}
    {%- endif -%}
    {{ return({'comparable': true, 'why_not': none}) }}
{% endmacro %}


{#-
    SQL of the differences between one member's target and the landed snapshot `snapshot_id` of
    its source: one row per key that is only in the source, only in the target, or in both with
    different values, with the columns that differ and both rows as JSON; and one per key the
    target holds more than once. For a target that can be compared and a snapshot that exists:
    lakerep_diff_subject decides both.
-#}
{% macro lakerep_target_diff_rows(target_table, snapshot_id) %}
{%- set member = lakerep_member(target_table) -%}
{%- set registration = member.registration -%}
{%- set keys = registration.key_columns -%}
{%- set names = registration.columns | map(attribute='name') | list -%}
with

snapshot_rows as (
    {{ lakerep_snapshot_image_rows(registration, 'snapshot_id = ' ~ lakerep_string_literal(snapshot_id)) }}
),

target_rows as (
    select {% for name in names %}`{{ name }}`{{ ', ' if not loop.last }}{% endfor %}
    {%- if member.target_structure == 'ccd' %}
    from (
        select
            *,
            row_number() over (
                partition by {% for key in keys %}`{{ key }}`{{ ', ' if not loop.last }}{% endfor %}
                order by IBMSNAP_COMMITSEQ desc, IBMSNAP_INTENTSEQ desc
            ) as newest_first
        from {{ ref(target_table) }}
    ) as history
    where newest_first = 1 and IBMSNAP_OPERATION <> 'D'
    {%- else %}
    from {{ ref(target_table) }}
    {%- endif %}
),

compared as (
    select
        case
            when target_side.present is null then 'only in source'
            when source_side.present is null then 'only in target'
            else 'differs'
        end as difference,
        to_json(named_struct(
            {%- for key in keys %}
            '{{ key }}', coalesce(source_side.`{{ key }}`, target_side.`{{ key }}`){{ ',' if not loop.last }}
            {%- endfor %}
        )) as row_key,
        concat_ws(', '
            {%- for name in names %},
            case when not (source_side.`{{ name }}` <=> target_side.`{{ name }}`) then '{{ name }}' end
            {%- endfor %}
        ) as differing_columns,
        case when source_side.present then to_json(named_struct(
            {%- for name in names %}
            '{{ name }}', source_side.`{{ name }}`{{ ',' if not loop.last }}
            {%- endfor %}
        )) end as source_row,
        case when target_side.present then to_json(named_struct(
            {%- for name in names %}
            '{{ name }}', target_side.`{{ name }}`{{ ',' if not loop.last }}
            {%- endfor %}
        )) end as target_row
    from (select *, true as present from snapshot_rows) as source_side
    full outer join (select *, true as present from target_rows) as target_side
        on {{ lakerep_same_key('source_side', 'target_side', registration) }}
),

duplicated as (
    select
        'duplicated in target' as difference,
        to_json(named_struct(
            {%- for key in keys %}
            '{{ key }}', `{{ key }}`{{ ',' if not loop.last }}
            {%- endfor %}
        )) as row_key,
        cast(count(*) as string) as differing_columns,
        cast(null as string) as source_row,
        cast(null as string) as target_row
    from target_rows
    group by {% for key in keys %}`{{ key }}`{{ ', ' if not loop.last }}{% endfor %}
    having count(*) > 1
)

select * from compared
where difference <> 'differs' or differing_columns <> ''
union all
select * from duplicated
{% endmacro %}


{#-
    The models a target's comparison reads: the target, the landed snapshots, the apply state
    (its synchpoint), and the changes of its source (whether a snapshot is still consistent).
    The data test declares them all as its parents.
-#}
{% macro lakerep_diff_inputs(target_table) %}
    {%- set registration = lakerep_member(target_table).registration -%}
    {{ return([
        target_table, 'stg_source_snapshot', 'apply_set_status', 'apply_plan', 'apply_trail', 'register', 'uow',
        lakerep_cd_model_name(registration.source_owner, registration.source_table),
    ]) }}
{% endmacro %}


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
    {%- set comparable = lakerep_target_comparable(member) -%}
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
        'select ' ~ lakerep_target_synchpoint(target_table) ~ ' as position'
    ).rows[0].position -%}
    {%- if position is none -%}
        {{ return(dict(subject, why_not='its set has never applied a cycle, it has no synchpoint')) }}
    {%- endif -%}
    {%- set snapshot_id = run_query(lakerep_consistent_snapshot(member, position)).rows[0].snapshot_id -%}
    {%- if snapshot_id is none -%}
        {{ return(dict(subject, position=position, why_not='no consistent snapshot of ' ~ member.source_owner
            ~ '.' ~ member.source_table ~ ' at ' ~ position ~ ' is landed (an unload whose start and end are '
            ~ position ~ ', or an earlier one with no change of the table committed after it up to ' ~ position
            ~ ')')) }}
    {%- endif -%}
    {{ return(dict(subject, position=position, snapshot_id=snapshot_id, why_not=none)) }}
{% endmacro %}


{#-
    SQL of the id of the consistent snapshot of a member's source to compare its target with at
    `position`: of the unloads whose start and end are one position Q, landed and valid, the
    newest (highest Q, then the latest landed) where the source table is as it was at `position`:
    Q is `position`, or no change of the table committed after Q up to `position`, which the CD
    table would show (Q at or after CD_OLD_SYNCHPOINT: nothing after it is pruned). An unload
    taken from a live source, at a position of its own, can so be compared once Capture has
    read past it.
-#}
{% macro lakerep_consistent_snapshot(member, position) %}
    {%- set cd_relation = ref(lakerep_cd_model_name(member.source_owner, member.source_table)) -%}
    {%- set at = lakerep_string_literal(position) -%}
    select max_by(snapshot.snapshot_id, struct(snapshot.unload_start_position, snapshot.landed_at)) as snapshot_id
    from {{ ref('stg_source_snapshot') }} as snapshot
    where
        snapshot.source_owner = {{ lakerep_string_literal(member.source_owner) }}
        and snapshot.source_table = {{ lakerep_string_literal(member.source_table) }}
        and snapshot.unload_start_position = snapshot.unload_end_position
        and (
            snapshot.unload_start_position = {{ at }}
            or snapshot.unload_start_position < {{ at }}
            and snapshot.unload_start_position >= (
                select coalesce(max(CD_OLD_SYNCHPOINT), '{{ lakerep_lowest_position() }}')
                from {{ ref('register') }}
                where
                    GLOBAL_RECORD = 'N'
                    and SOURCE_OWNER = {{ lakerep_string_literal(member.source_owner) }}
                    and SOURCE_TABLE = {{ lakerep_string_literal(member.source_table) }}
            )
            and not exists (
                select 1
                from {{ cd_relation }} as cd
                inner join {{ ref('uow') }} as uow on cd.IBMSNAP_UOWID = uow.IBMSNAP_UOWID
                where uow.IBMSNAP_COMMITSEQ > snapshot.unload_start_position and uow.IBMSNAP_COMMITSEQ <= {{ at }}
            )
        )
{% endmacro %}


{#-
    SQL of the synchpoint a member's target is at: the current cycle's synchpoint if its set's
    status is APPLIED (the target was, or is being, brought to it), else that of the last cycle
    its set applied (null if none).
-#}
{% macro lakerep_target_synchpoint(target_table) %}
    coalesce(
        (
            select plan.to_synchpoint
            from ({{ lakerep_current_plan() }}) as plan
            inner join {{ ref('apply_set_status') }} as status
                on plan.apply_qual = status.apply_qual and plan.set_name = status.set_name
            where plan.target_table = {{ lakerep_string_literal(target_table) }} and status.status = 'APPLIED'
        ),
        (
            select max_by(applied.to_synchpoint, applied.apply_cycle)
            from ({{ lakerep_applied_plans(ref('apply_plan'), ref('apply_trail')) }}) as applied
            where applied.target_table = {{ lakerep_string_literal(target_table) }}
        )
    )
{% endmacro %}


{#-
    `lakerep diff` (dbt run-operation): compares each target in `target_tables` (all members when
    empty) with the consistent snapshot of its source at `at` (default: the target's synchpoint).
    Logs per target a line of counts and up to `limit` differing keys, then one line
    'lakerep_diff_result <json>' with the counts per target. Rejected (a compile error, nothing
    compared) for a position that is not 20 hex digits, a target that is no member, or one with
    nothing to compare (lakerep_diff_subject), except that comparing every member skips one that
    cannot be compared, with a line.
-#}
{% macro lakerep_diff(target_tables=[], at=none, limit=10) %}
    {%- if at is not none and not modules.re.fullmatch('[0-9A-Fa-f]{20}', at | string) -%}
        {{ exceptions.raise_compiler_error('diff rejected: position ' ~ at ~ ' is not 20 hex digits') }}
    {%- endif -%}
    {%- set plans = [] -%}
    {%- for target_table in target_tables or (lakerep_members() | map(attribute='target_table') | list) -%}
        {%- set subject = lakerep_diff_subject(target_table, at) -%}
        {%- if subject.why_not is none -%}
            {%- do plans.append(subject) -%}
        {%- elif not subject.comparable and not target_tables -%}
            {{ log(target_table ~ ': not compared: ' ~ subject.why_not, info=True) }}
        {%- else -%}
            {{ exceptions.raise_compiler_error('diff of ' ~ target_table ~ ' rejected: ' ~ subject.why_not) }}
        {%- endif -%}
    {%- endfor -%}

    {%- set results = {} -%}
    {%- for plan in plans -%}
        {%- set rows = run_query(
            lakerep_target_diff_rows(plan.target_table, plan.snapshot_id)
            ~ ' order by difference, row_key'
        ).rows -%}
        {%- set counts = {'only in source': 0, 'only in target': 0, 'differs': 0, 'duplicated in target': 0} -%}
        {%- for row in rows -%}
            {%- do counts.update({row.difference: counts[row.difference] + 1}) -%}
        {%- endfor -%}
        {{ log(
            plan.target_table ~ ' at ' ~ plan.position ~ ' against snapshot ' ~ plan.snapshot_id ~ ': '
            ~ counts['only in source'] ~ ' only in the source, ' ~ counts['only in target']
            ~ ' only in the target, ' ~ counts['differs'] ~ ' differing, '
            ~ counts['duplicated in target'] ~ ' keys held more than once',
            info=True
        ) }}
        {%- for row in rows[:limit] -%}
            {{ log(
                '  ' ~ row.difference ~ ' ' ~ row.row_key
                ~ (': ' ~ row.differing_columns ~ ' (source ' ~ row.source_row ~ ', target ' ~ row.target_row ~ ')'
                    if row.difference == 'differs'
                    else (' ' ~ row.differing_columns ~ ' times' if row.difference == 'duplicated in target'
                        else ': ' ~ (row.source_row or row.target_row))),
                info=True
            ) }}
        {%- endfor -%}
        {%- do results.update({plan.target_table: {
            'position': plan.position, 'snapshot_id': plan.snapshot_id,
            'only_in_source': counts['only in source'], 'only_in_target': counts['only in target'],
            'differing': counts['differs'], 'duplicated': counts['duplicated in target'],
        }}) -%}
    {%- endfor -%}
    {{ log('lakerep_diff_result ' ~ tojson(results), info=True) }}
{% endmacro %}
