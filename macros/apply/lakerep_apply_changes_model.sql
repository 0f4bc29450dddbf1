{#-
    Body of one member's change model (SPEC §5): what the current Apply cycle does to its target,
    worked out before the target is touched. It fetches the changes committed after the plan's
    fetch_after up to the set's synchpoint (CD joined to UOW). For a copy it keeps one row per
    key: the key's last change (its after image is the source row at the synchpoint) and the
    action on the target: insert, update, delete, none (deleted, never there), or load (a
    snapshot row no change touches, on a refresh). The key's first change is checked against
    the target's rows (the snapshot's, on a refresh): an insert of an existing key, or an update
    or delete of a missing one, is an operational error; committed up to the plan's
    mitigate_through it is reworked instead (the error-mitigation filter: the insert becomes an
    update, the update of a missing key an insert of its after image, the delete of a missing key
    nothing). Either way the key ends as its last change says. A key update without a delete/insert pair (before images only) becomes a delete of the
    old key and an insert of the new one; an update without a before image kept its key. For a CCD target every change is a row to append.
    A cycle in which the member cannot change its target (lakerep_member_changes_this_cycle)
    leaves the table as it is: its rows carry the apply_cycle that wrote them, and its readers
    take only the current cycle's (lakerep_current_apply_cycle).
    Argument: target_table — the member's target.
-#}
{% macro lakerep_apply_changes_model(target_table) %}
{{ config(lakerep_writes_if='member_changed:' ~ target_table) }}
{%- set member = lakerep_member(target_table) -%}
{%- set registration = member.registration -%}
{%- set plan = lakerep_member_plan(target_table) -%}
{%- set cd_relation = ref(lakerep_cd_model_name(registration.source_owner, registration.source_table)) -%}
{%- set keys = registration.key_columns -%}
{%- set applies = plan.set_action == 'APPLY' and plan.action in ['MIRROR', 'REFRESH', 'EXTERNAL_REFRESH'] -%}
{%- set refreshing = plan.action == 'REFRESH' -%}
{%- set target_rows = lakerep_control_relation(target_table, schema='replica') -%}
{%- set prefix = registration.before_image_prefix -%}
{%- set splits_key_updates = prefix is not none and not registration.key_updates_as_delete_insert
    and member.target_structure != 'ccd' -%}

-- depends_on: {{ ref('stg_source_snapshot') }}

with

committed_changes as (
    select
        uow.IBMSNAP_COMMITSEQ,
        cd.IBMSNAP_INTENTSEQ,
        cd.IBMSNAP_OPERATION,
        uow.IBMSNAP_LOGMARKER,
        {%- for column in registration.columns %}
            cd.`{{ column.name }}`,
        {%- endfor %}
        {%- if splits_key_updates %}
            {%- for column in registration.columns %}
                cd.`{{ prefix ~ column.name }}`,
            {%- endfor %}
        {%- endif %}
        cd.IBMSNAP_UOWID
    from {{ cd_relation }} as cd
    inner join {{ ref('uow') }} as uow
        on cd.IBMSNAP_UOWID = uow.IBMSNAP_UOWID
    where
        {{ 'true' if applies else 'false' }}
        and uow.IBMSNAP_COMMITSEQ > {{ lakerep_string_literal(plan.fetch_after) }}
        and uow.IBMSNAP_COMMITSEQ <= {{ lakerep_string_literal(plan.to_synchpoint) }}
),

fetched as (
    {%- if splits_key_updates %}
        {#- A key column is never null in an image (staging), so a null before key means the
            update had no before image: it kept its key. -#}
        {%- set key_moved %}
            `{{ prefix ~ keys[0] }}` is not null
            and not ({% for key in keys %}`{{ key }}` <=> `{{ prefix ~ key }}`{{ ' and ' if not loop.last }}{% endfor %})
        {%- endset %}
        select
            IBMSNAP_COMMITSEQ,
            IBMSNAP_INTENTSEQ,
            case when IBMSNAP_OPERATION = 'U' and {{ key_moved }} then 'I' else IBMSNAP_OPERATION end
                as IBMSNAP_OPERATION,
            IBMSNAP_LOGMARKER,
            {%- for column in registration.columns %}
                `{{ column.name }}`{{ ',' if not loop.last }}
            {%- endfor %}
        from committed_changes
        union all
        select
            IBMSNAP_COMMITSEQ,
            IBMSNAP_INTENTSEQ,
            'D' as IBMSNAP_OPERATION,
            IBMSNAP_LOGMARKER,
            {%- for column in registration.columns %}
                `{{ prefix ~ column.name }}` as `{{ column.name }}`{{ ',' if not loop.last }}
            {%- endfor %}
        from committed_changes
        where IBMSNAP_OPERATION = 'U' and {{ key_moved }}
    {%- else %}
        select
            IBMSNAP_COMMITSEQ,
            IBMSNAP_INTENTSEQ,
            IBMSNAP_OPERATION,
            IBMSNAP_LOGMARKER,
            {%- for column in registration.columns %}
                `{{ column.name }}`{{ ',' if not loop.last }}
            {%- endfor %}
        from committed_changes
    {%- endif %}
),

{% if refreshing %}
snapshot_rows as (
    {{ lakerep_snapshot_image_rows(registration, 'snapshot_id = ' ~ lakerep_string_literal(plan.snapshot_id)) }}
),

loaded_rows as (
    select
        cast({{ plan.apply_cycle }} as bigint) as apply_cycle,
        'load' as row_action,
        'L' as first_operation,
        0 as change_count,
        false as reworked,
        cast(null as string) as operational_error,
        cast(null as string) as first_change,
        snapshot_rows.*
    from snapshot_rows
),
{% endif %}

{% if member.target_structure == 'ccd' %}
member_rows as (
    select
        cast({{ plan.apply_cycle }} as bigint) as apply_cycle,
        'append' as row_action,
        IBMSNAP_OPERATION as first_operation,
        1 as change_count,
        false as reworked,
        cast(null as string) as operational_error,
        cast(null as string) as first_change,
        fetched.*
    from fetched
    {%- if refreshing %}
        union all
        select * from loaded_rows
    {%- endif %}
)
{% else %}
{%- set key_list %}{% for key in keys %}`{{ key }}`{{ ', ' if not loop.last }}{% endfor %}{% endset -%}
{%- set same_key -%}
    {% for key in keys %}changes.`{{ key }}` <=> held.`{{ key }}`{{ ' and ' if not loop.last }}{% endfor %}
{%- endset %}
{%- set change_sequence -%}
    partition by {{ key_list }}
    order by IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, case IBMSNAP_OPERATION when 'D' then 0 else 1 end
{%- endset %}
-- Each change with its key's place and count, and its key's first change (first_value over the
-- same order: one pass over the changes, no join back to them).
ordered as (
    select
        *,
        row_number() over ({{ change_sequence }}) as change_order,
        count(*) over (partition by {{ key_list }}) as change_count,
        first_value(named_struct(
            'IBMSNAP_COMMITSEQ', IBMSNAP_COMMITSEQ,
            'IBMSNAP_INTENTSEQ', IBMSNAP_INTENTSEQ,
            'IBMSNAP_OPERATION', IBMSNAP_OPERATION,
            {%- for column in registration.columns %}
                '{{ column.name }}', `{{ column.name }}`{{ ',' if not loop.last }}
            {%- endfor %}
        )) over ({{ change_sequence }}) as first_image
    from fetched
),

held_keys as (
    {%- if refreshing %}
        select distinct {{ key_list }} from snapshot_rows
    {%- elif target_rows is not none %}
        select {{ key_list }} from {{ target_rows }}
    {%- else %}
        select {% for key in keys %}cast(null as string) as `{{ key }}`{{ ', ' if not loop.last }}{% endfor %} where false
    {%- endif %}
),

keyed_changes as (
    select
        changes.*,
        changes.first_image.IBMSNAP_OPERATION as first_operation,
        changes.first_image.IBMSNAP_COMMITSEQ as first_commitseq,
        to_json(changes.first_image) as first_change,
        held.`{{ keys[0] }}` is not null as existed
    from ordered as changes
    left join held_keys as held on {{ same_key }}
    where changes.change_order = changes.change_count
),

classified as (
    select
        *,
        (first_operation = 'I' and existed) or (first_operation != 'I' and not existed) as conflicts,
        coalesce(first_commitseq <= {{ lakerep_string_literal(plan.mitigate_through) }}, false) as mitigated
    from keyed_changes
),

change_rows as (
    select
        cast({{ plan.apply_cycle }} as bigint) as apply_cycle,
        case
            when IBMSNAP_OPERATION = 'D' then case when existed then 'delete' else 'none' end
            when existed then 'update'
            else 'insert'
        end as row_action,
        first_operation,
        cast(change_count as int) as change_count,
        conflicts and mitigated as reworked,
        case
            when conflicts and not mitigated then
                case first_operation
                    when 'I' then 'insert of an existing key'
                    when 'U' then 'update of a missing key'
                    else 'delete of a missing key'
                end
        end as operational_error,
        first_change,
        IBMSNAP_COMMITSEQ,
        IBMSNAP_INTENTSEQ,
        IBMSNAP_OPERATION,
        IBMSNAP_LOGMARKER,
        {%- for column in registration.columns %}
            `{{ column.name }}`{{ ',' if not loop.last }}
        {%- endfor %}
    from classified
),

member_rows as (
    select * from change_rows
    {%- if refreshing %}
        union all
        select loaded_rows.* from loaded_rows
        left anti join (select distinct {{ key_list }} from fetched) as changes
            on {% for key in keys %}changes.`{{ key }}` <=> loaded_rows.`{{ key }}`{{ ' and ' if not loop.last }}{% endfor %}
    {%- endif %}
)
{% endif %}

select * from member_rows
{% endmacro %}
