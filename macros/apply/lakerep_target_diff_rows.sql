{#-
    SQL of the differences between one member's target and the landed snapshot `snapshot_id` of
    its source, over the columns the target holds: one row per key that is only in the source,
    only in the target, or in both with different values, with the columns that differ and both
    rows as JSON; and one per key the target holds more than once. For a target that can be
    compared and a snapshot that exists: lakerep_diff_subject decides both.
-#}
{% macro lakerep_target_diff_rows(target_table, snapshot_id) %}
{%- set member = lakerep_member(target_table) -%}
{%- set registration = member.registration -%}
{%- set keys = registration.key_columns -%}
{%- set names = member.columns | map(attribute='name') | list -%}
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
