{#-
    The comparison of a target with its source (SPEC §7): `lakerep diff` runs lakerep_diff, the
    data test lakerep_matches_source_snapshot runs the same rows.

    A target is compared with a consistent snapshot of its source at the target's synchpoint: an
    unload landed in lakerep_raw.source_snapshot whose start and end are that one position (the
    newest, if several). A CCD target is compared by the state its history gives: per key its
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
    SQL of the differences between one member's target and the snapshot of its source at the
    position `position_sql` (a SQL expression): one row per key that is only in the source, only
    in the target, or in both with different values, with the columns that differ and both rows
    as JSON; and one per key the target holds more than once. No consistent snapshot at that
    position, or a target that cannot be compared: no rows (lakerep_diff checks both).
-#}
{% macro lakerep_target_diff_rows(target_table, position_sql) %}
{%- set member = lakerep_member(target_table) -%}
{%- if not lakerep_target_comparable(member).comparable -%}
    {{ return('select cast(null as string) as difference where false') }}
{%- endif -%}
{%- set registration = member.registration -%}
{%- set keys = registration.key_columns -%}
{%- set names = registration.columns | map(attribute='name') | list -%}
with

consistent_snapshot as (
    select ({{ lakerep_consistent_snapshot_id(registration, position_sql) }}) as snapshot_id
),

snapshot_rows as (
    {{ lakerep_snapshot_image_rows(
        registration,
        'snapshot_id = (select snapshot_id from consistent_snapshot)'
    ) }}
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

select differences.*
from (
    select * from compared
    where difference <> 'differs' or differing_columns <> ''
    union all
    select * from duplicated
) as differences
cross join consistent_snapshot
where consistent_snapshot.snapshot_id is not null
{% endmacro %}


{#-
    The relations a target's comparison reads that are not built yet (their model names): the
    target, the landed snapshots and the apply state. The data test has nothing to compare while
    any is missing (a `dbt build --select staging` on a new lake selects it, as the snapshots'
    test); `lakerep diff` is rejected.
-#}
{% macro lakerep_diff_inputs_missing(target_table) %}
    {%- set missing = [] -%}
    {%- for model_name in [target_table, 'stg_source_snapshot', 'apply_set_status', 'apply_plan', 'apply_trail'] -%}
        {%- if load_relation(ref(model_name)) is none -%}
            {%- do missing.append(model_name) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(missing) }}
{% endmacro %}


{#- SQL of the id of the newest consistent snapshot of a source at `position_sql` (or null). -#}
{% macro lakerep_consistent_snapshot_id(registration, position_sql) %}
    select max_by(snapshot_id, landed_at)
    from {{ ref('stg_source_snapshot') }}
    where
        source_owner = {{ lakerep_string_literal(registration.source_owner) }}
        and source_table = {{ lakerep_string_literal(registration.source_table) }}
        and unload_start_position = {{ position_sql }}
        and unload_end_position = {{ position_sql }}
{% endmacro %}


{#- The synchpoint a member's target is at (lakerep_target_synchpoint), queried: none if none. -#}
{% macro lakerep_target_position(target_table) %}
    {{ return(run_query('select ' ~ lakerep_target_synchpoint(target_table) ~ ' as position').rows[0].position) }}
{% endmacro %}


{#- The id of the newest consistent snapshot of a member's source at `position`, queried: none if none. -#}
{% macro lakerep_consistent_snapshot(target_table, position) %}
    {%- set registration = lakerep_member(target_table).registration -%}
    {{ return(run_query(
        'select (' ~ lakerep_consistent_snapshot_id(registration, lakerep_string_literal(position)) ~ ') as snapshot_id'
    ).rows[0].snapshot_id) }}
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
    compared) for a target that is no member or cannot be compared (lakerep_target_comparable;
    when comparing every member it is skipped with a line instead), a position that is not 20 hex
    digits, or a source with no consistent snapshot at the position.
-#}
{% macro lakerep_diff(target_tables=[], at=none, limit=10) %}
    {%- set targets = [] -%}
    {%- for target_table in target_tables or (lakerep_members() | map(attribute='target_table') | list) -%}
        {%- set comparable = lakerep_target_comparable(lakerep_member(target_table)) -%}
        {%- if comparable.comparable -%}
            {%- do targets.append(target_table) -%}
        {%- elif target_tables -%}
            {{ exceptions.raise_compiler_error('diff of ' ~ target_table ~ ' rejected: ' ~ comparable.why_not) }}
        {%- else -%}
            {{ log(target_table ~ ': not compared: ' ~ comparable.why_not, info=True) }}
        {%- endif -%}
    {%- endfor -%}
    {%- if at is not none and not modules.re.fullmatch('[0-9A-Fa-f]{20}', at | string) -%}
        {{ exceptions.raise_compiler_error('diff rejected: position ' ~ at ~ ' is not 20 hex digits') }}
    {%- endif -%}
    {%- set plans = [] -%}
    {%- for target_table in targets -%}
        {%- set member = lakerep_member(target_table) -%}
        {%- set missing = lakerep_diff_inputs_missing(target_table) -%}
        {%- if missing -%}
            {{ exceptions.raise_compiler_error(
                'diff of ' ~ target_table ~ ' rejected: not built yet: ' ~ missing | join(', ')
            ) }}
        {%- endif -%}
        {%- set position = (at | upper) if at is not none else lakerep_target_position(target_table) -%}
        {%- if position is none -%}
            {{ exceptions.raise_compiler_error(
                'diff of ' ~ target_table ~ ' rejected: its set has never applied a cycle, it has no synchpoint'
            ) }}
        {%- endif -%}
        {%- set snapshot = lakerep_consistent_snapshot(target_table, position) -%}
        {%- if snapshot is none -%}
            {{ exceptions.raise_compiler_error(
                'diff of ' ~ target_table ~ ' rejected: no consistent snapshot of ' ~ member.source_owner ~ '.'
                ~ member.source_table ~ ' at ' ~ position ~ ' is landed (an unload whose start and end are '
                ~ position ~ ')'
            ) }}
        {%- endif -%}
        {%- do plans.append({'target_table': target_table, 'position': position, 'snapshot_id': snapshot}) -%}
    {%- endfor -%}

    {%- set results = {} -%}
    {%- for plan in plans -%}
        {%- set rows = run_query(
            lakerep_target_diff_rows(plan.target_table, lakerep_string_literal(plan.position))
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
