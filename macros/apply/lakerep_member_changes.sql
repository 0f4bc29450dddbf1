{#-
    SQL of what the current Apply cycle does to one member's target (SPEC §5), worked out before
    the target is touched: apply_changes holds these rows of every member with work. It fetches
    the changes of the member's source committed after the plan's fetch_after up to the set's
    synchpoint (the captured log's CD rows joined to its UOW rows). For a copy it keeps one row
    per key: the key's last change (its row image is the source row at the synchpoint) and the
    action on the target: insert, update, delete, none (deleted, never there), or load (a
    snapshot row no change touches, on a refresh). The key's first change is checked against the
    target's keys (the snapshot's, on a refresh): an insert of an existing key, or an update or
    delete of a missing one, is an operational error; committed up to the plan's
    mitigate_through it is reworked instead (the error-mitigation filter: the insert becomes an
    update, the update of a missing key an insert of its after image, the delete of a missing key
    nothing). Either way the key ends as its last change says. A key update without a
    delete/insert pair (before images only) becomes a delete of the old key and an insert of the
    new one; an update without a before image kept its key. For a CCD target every change is a
    row to append. Columns: apply_changes' less its plan columns.
    Arguments: member; plan — the member's row of apply_cycle_plan, as literals.
-#}
{% macro lakerep_member_changes(member, plan) %}
{%- set registration = member.registration -%}
{%- set captured = ref('captured_log') -%}
{%- set prefix = registration.before_image_prefix -%}
{%- set splits_key_updates = prefix is not none and not registration.key_updates_as_delete_insert
    and member.target_structure != 'ccd' -%}
{%- set refreshing = plan.action == 'REFRESH' -%}
{%- set target_rows = lakerep_control_relation(member.target_table, schema='replica') -%}
{%- set first_fields %}
    {%- for column in registration.columns %}, '{{ column.name }}', {{ lakerep_typed_field('first_row', column) }}{% endfor %}
{%- endset %}
{%- set key = lakerep_string_literal(member.target_table) %}
select
    {{ key }} as target_table,
    member_rows.*
from (
    with

    committed_changes as (
        select
            uow.IBMSNAP_INTENTSEQ as IBMSNAP_COMMITSEQ,
            cd.IBMSNAP_INTENTSEQ,
            cd.IBMSNAP_OPERATION,
            uow.IBMSNAP_LOGMARKER,
            cd.row_key,
            cd.prior_key,
            cd.row_image,
            cd.prior_image
        from {{ captured }} as cd
        inner join {{ captured }} as uow
            on cd.IBMSNAP_UOWID = uow.IBMSNAP_UOWID
        where
            uow.IBMSNAP_OPERATION = 'C'
            and cd.IBMSNAP_OPERATION != 'C'
            and cd.source_owner = {{ lakerep_string_literal(registration.source_owner) }}
            and cd.source_table = {{ lakerep_string_literal(registration.source_table) }}
            -- a change comes before its commit: the bound lets Delta skip the newer files
            and cd.IBMSNAP_INTENTSEQ < {{ lakerep_string_literal(plan.to_synchpoint) }}
            and uow.IBMSNAP_INTENTSEQ > {{ lakerep_string_literal(plan.fetch_after) }}
            and uow.IBMSNAP_INTENTSEQ <= {{ lakerep_string_literal(plan.to_synchpoint) }}
    ),

    fetched as (
        select
            IBMSNAP_COMMITSEQ,
            IBMSNAP_INTENTSEQ,
            {%- if splits_key_updates %}
                case when IBMSNAP_OPERATION = 'U' and prior_key != row_key then 'I' else IBMSNAP_OPERATION end
                    as IBMSNAP_OPERATION,
            {%- else %}
                IBMSNAP_OPERATION,
            {%- endif %}
            IBMSNAP_LOGMARKER,
            row_key,
            row_image
        from committed_changes
        {%- if splits_key_updates %}
            union all
            -- An update that moved its key (its before image says the old one): the old key goes.
            select
                IBMSNAP_COMMITSEQ,
                IBMSNAP_INTENTSEQ,
                'D' as IBMSNAP_OPERATION,
                IBMSNAP_LOGMARKER,
                prior_key as row_key,
                prior_image as row_image
            from committed_changes
            where IBMSNAP_OPERATION = 'U' and prior_key != row_key
        {%- endif %}
    ),

    {%- if refreshing %}
    snapshot_rows as (
        select
            unload_start_position as IBMSNAP_COMMITSEQ,
            unload_start_position as IBMSNAP_INTENTSEQ,
            'I' as IBMSNAP_OPERATION,
            landed_at as IBMSNAP_LOGMARKER,
            row_key,
            row_image
        from (
            select
                *,
                max(landing_batch) over (partition by snapshot_id) as latest_landing
            from {{ ref('int_snapshot_rows_valid') }}
            where
                snapshot_id = {{ lakerep_string_literal(plan.snapshot_id) }}
                and source_owner = {{ lakerep_string_literal(registration.source_owner) }}
                and source_table = {{ lakerep_string_literal(registration.source_table) }}
        ) as landings
        where landing_batch = latest_landing and row_image is not null
    ),

    loaded_rows as (
        select
            'load' as row_action,
            'L' as first_operation,
            0 as change_count,
            false as reworked,
            cast(null as string) as operational_error,
            cast(null as string) as first_change,
            snapshot_rows.*
        from snapshot_rows
    ),
    {%- endif %}

    {%- if member.target_structure == 'ccd' %}
    member_rows as (
        select
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
    {%- else %}
    -- Each change with its key's place and count, and its key's first change (first_value over
    -- the same order: one pass over the changes, no join back to them).
    ordered as (
        select
            *,
            row_number() over key_order as change_order,
            count(*) over (partition by row_key) as change_count,
            first_value(named_struct(
                'IBMSNAP_COMMITSEQ', IBMSNAP_COMMITSEQ,
                'IBMSNAP_INTENTSEQ', IBMSNAP_INTENTSEQ,
                'IBMSNAP_OPERATION', IBMSNAP_OPERATION,
                'row_image', row_image
            )) over key_order as first_image
        from fetched
        window key_order as (
            partition by row_key
            order by IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, case IBMSNAP_OPERATION when 'D' then 0 else 1 end
        )
    ),

    held_keys as (
        {%- if refreshing %}
            select distinct row_key from snapshot_rows
        {%- elif target_rows is not none %}
            select {{ lakerep_typed_row_key(registration) }} as row_key from {{ target_rows }}
        {%- else %}
            select cast(null as string) as row_key where false
        {%- endif %}
    ),

    keyed_changes as (
        select
            changes.*,
            changes.first_image.IBMSNAP_OPERATION as first_operation,
            changes.first_image.IBMSNAP_COMMITSEQ as first_commitseq,
            to_json(named_struct(
                'IBMSNAP_COMMITSEQ', changes.first_image.IBMSNAP_COMMITSEQ,
                'IBMSNAP_INTENTSEQ', changes.first_image.IBMSNAP_INTENTSEQ,
                'IBMSNAP_OPERATION', changes.first_image.IBMSNAP_OPERATION
                {{- first_fields }}
            )) as first_change,
            held.row_key is not null as existed
        from (
            select *, {{ lakerep_parse_image('first_image.row_image', registration) }} as first_row
            from ordered
            where change_order = change_count
        ) as changes
        left join held_keys as held on changes.row_key = held.row_key
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
            row_key,
            row_image
        from classified
    ),

    member_rows as (
        select * from change_rows
        {%- if refreshing %}
            union all
            select loaded_rows.* from loaded_rows
            left anti join (select distinct row_key from fetched) as changes
                on loaded_rows.row_key = changes.row_key
        {%- endif %}
    )
    {%- endif %}

    select * from member_rows
) as member_rows
{% endmacro %}
