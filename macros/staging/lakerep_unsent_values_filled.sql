{#-
    SQL of the records (a CTE of int_log_records_judged, with sent_after_values: the after image
    parsed, its declared mapping made, and normalized_position) with after_values: the sent
    values, each value the source did not send because an update left it unchanged
    (lakerep_unsent_value: a TOASTed value) filled from the row's last image the lake holds
    before the record, of the records judged now, those judged before (in the model's table),
    the changes captured (ccd_rows, which keeps those a prune deleted from the model's table:
    lakerep_prune_plan) and the unloads judged (int_snapshot_rows_judged; both read by name: no
    ref, so the DAG keeps its order); lacks_values says which records lacked one;
    record_in_position, fill_key and fill_prior_key are the filling's own. A value is never
    taken from across a delete of the key or a key update from or to it: an image before one is
    another row's. A key update's own unsent value is its old key's row's (the row moved), and
    the changes after it at the new key take it from there (one key update deep: a value carried
    through two key updates of one judging stays unsent). A value no earlier image holds stays
    unsent, and validation quarantines the record. The lookups cost joins, so a judging without
    such a value (lakerep_log_judging: fills) has none: no record lacks one.
    Arguments: records — the name of the CTE; judging — lakerep_log_judging's (fills, held).
-#}
{% macro lakerep_unsent_values_filled(records, judging) %}
{%- if not judging.fills %}
select
    *,
    sent_after_values as after_values,
    false as lacks_values
from {{ records }}
{%- else %}
{%- set unsent = lakerep_string_literal(lakerep_unsent_value()) %}
{%- set unloads = lakerep_control_relation('int_snapshot_rows_judged', schema='staging') %}
{%- set changes = lakerep_control_relation('ccd_rows', schema='capture') %}
with

keyed as (
    select
        *,
        row_number() over (
            partition by landing_batch, log_position
            order by landed_at, uow_id, record_type, before_image, after_image
        ) as record_in_position,
        {{ lakerep_row_key("case when record_type = 'D' then before_values else sent_after_values end") }}
            as fill_key,
        {{ lakerep_row_key('before_values') }} as fill_prior_key,
        record_type = 'U'
        and exists(map_values(sent_after_values), value -> value = {{ unsent }}) as lacks_values
    from {{ records }}
),

{#- A lacking record looks its value up at its row's key before the record: the old key, for a
    key update (moves), before the marks it leaves at its own position. #}

lacking as (
    select
        keyed.landing_batch,
        keyed.log_position,
        keyed.record_in_position,
        keyed.source_owner,
        keyed.source_table,
        case when keyed.fill_prior_key != keyed.fill_key then keyed.fill_prior_key else keyed.fill_key end as fill_key,
        coalesce(keyed.fill_prior_key != keyed.fill_key, false) as moves,
        keyed.normalized_position,
        lacked.name
    from keyed
    lateral view explode(map_keys(map_filter(sent_after_values, (name, value) -> value = {{ unsent }}))) lacked as name
    where keyed.lacks_values and keyed.fill_key is not null
),

lacking_columns as (
    select distinct
        source_owner,
        source_table,
        fill_key,
        name
    from lacking
),

{#- Every image of a lacking row's key, and where the row's history at that key begins again
    (starts_over: a delete, the old key of a key update, and a key update's new key, whose earlier
    images were of another row): a value is never taken from across such a point. A key update's
    image at its new key names the update (moved_by): a value it did not send is the one its
    lookup at the old key finds. #}
row_images as (
    select
        source_owner,
        source_table,
        fill_key,
        normalized_position as position,
        1 as source_order,
        case when record_type != 'D' then sent_after_values end as image_values,
        record_type = 'D' or fill_prior_key != fill_key as starts_over,
        case
            when fill_prior_key != fill_key
                then named_struct(
                    'landing_batch', landing_batch, 'log_position', log_position, 'record_in_position', record_in_position
                )
        end as moved_by
    from keyed
    where record_type in ('I', 'U', 'D')
    union all
    select
        source_owner,
        source_table,
        fill_prior_key,
        normalized_position,
        1,
        null,
        true,
        null
    from keyed
    where record_type = 'U' and fill_prior_key != fill_key
    {%- if judging.held %}
        union all
        select
            source_owner,
            source_table,
            key,
            normalized_position,
            1,
            case when record_type != 'D' and key = row_key then {{ lakerep_image_values('after_image') }} end,
            record_type = 'D' or key != row_key or prior_key != row_key,
            null
        from {{ this }}
        lateral view explode(array_distinct(array(row_key, coalesce(prior_key, row_key)))) keys as key
        where
            quarantine_reason is null and record_type in ('I', 'U', 'D')
            and key in (select lacking_columns.fill_key from lacking_columns)
    {%- endif %}
    {%- if changes is not none %}
        union all
        select
            source_owner,
            source_table,
            row_key,
            IBMSNAP_INTENTSEQ,
            1,
            case when IBMSNAP_OPERATION != 'D' then {{ lakerep_image_values('row_image') }} end,
            IBMSNAP_OPERATION = 'D',
            null
        from {{ changes }}
        where row_key in (select lacking_columns.fill_key from lacking_columns)
    {%- endif %}
    {%- if unloads is not none %}
        union all
        select
            source_owner,
            source_table,
            row_key,
            {{ lakerep_normalize_position('unload_end_position') }},
            0,
            {{ lakerep_image_values('row_image') }},
            false,
            null
        from {{ unloads }}
        where quarantine_reason is null and row_key in (select lacking_columns.fill_key from lacking_columns)
    {%- endif %}
),

carried as (
    select
        row_images.source_owner,
        row_images.source_table,
        row_images.fill_key,
        lacking_columns.name,
        row_images.position,
        row_images.source_order,
        case
            when coalesce(not row_images.image_values[lacking_columns.name] <=> {{ unsent }}
                and map_contains_key(row_images.image_values, lacking_columns.name), false)
                then named_struct(
                    'value', row_images.image_values[lacking_columns.name], 'known', true, 'moved_by', null
                )
            else named_struct(
                'value', cast(null as string),
                'known', false,
                'moved_by', if(row_images.image_values[lacking_columns.name] <=> {{ unsent }}, row_images.moved_by, null)
            )
        end as carried_value
    from row_images
    inner join lacking_columns
        on
            row_images.source_owner = lacking_columns.source_owner
            and row_images.source_table = lacking_columns.source_table
            and row_images.fill_key = lacking_columns.fill_key
    where
        row_images.starts_over
        or coalesce(map_contains_key(row_images.image_values, lacking_columns.name)
            and not row_images.image_values[lacking_columns.name] <=> {{ unsent }}, false)
),

{#- Each value not sent takes the last value carried before it, of its row and column: a key
    update's lookup at its old key comes before the update's own mark there (lookup_order). #}
found as (
    select
        landing_batch,
        log_position,
        record_in_position,
        name,
        last(carried_value, true) over (
            partition by source_owner, source_table, fill_key, name
            order by position, source_order, lookup_order
            rows between unbounded preceding and current row
        ) as last_carried,
        is_lacking
    from (
        select
            source_owner,
            source_table,
            fill_key,
            name,
            position,
            source_order,
            0 as lookup_order,
            0 as is_lacking,
            carried_value,
            cast(null as bigint) as landing_batch,
            cast(null as string) as log_position,
            cast(null as int) as record_in_position
        from carried
        union all
        select
            source_owner,
            source_table,
            fill_key,
            name,
            normalized_position,
            1,
            if(moves, -1, 1),
            1,
            null,
            landing_batch,
            log_position,
            record_in_position
        from lacking
    )
),

{#- A value carried by a key update's mark is the one that update's lookup found. #}
resolved as (
    select
        found.landing_batch,
        found.log_position,
        found.record_in_position,
        found.name,
        case when found.last_carried.known then found.last_carried else moved.last_carried end as last_carried
    from found
    left join found as moved
        on
            moved.is_lacking = 1
            and moved.landing_batch = found.last_carried.moved_by.landing_batch
            and moved.log_position = found.last_carried.moved_by.log_position
            and moved.record_in_position = found.last_carried.moved_by.record_in_position
            and moved.name = found.name
    where found.is_lacking = 1
),

last_images as (
    select
        landing_batch,
        log_position,
        record_in_position,
        map_from_entries(collect_list(struct(name, last_carried.value))) as last_values
    from resolved
    where last_carried.known
    group by landing_batch, log_position, record_in_position
)

select
    keyed.*,
    case
        when keyed.lacks_values
            then transform_values(
                keyed.sent_after_values,
                (name, value) -> case
                    when value = {{ unsent }} and map_contains_key(last_images.last_values, name)
                        then last_images.last_values[name]
                    else value
                end
            )
        else keyed.sent_after_values
    end as after_values
from keyed
left join last_images
    on
        keyed.landing_batch = last_images.landing_batch
        and keyed.log_position = last_images.log_position
        and keyed.record_in_position = last_images.record_in_position
{%- endif %}
{% endmacro %}
