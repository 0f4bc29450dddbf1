{#-
    Body of one member's target model (SPEC §5): its table is one typed Delta table, the replica
    users read. When the set's status for the cycle is APPLIED and the member has rows to write
    (apply_changes), one statement brings it to the set's synchpoint, typed from the rows' images:
    a refresh replaces it with the snapshot's rows and the changes after them; a copy's MERGE on
    the stub's unique_key deletes the keys to delete and updates or inserts the others; a CCD
    target's MERGE inserts the changes it does not hold. Each repeats safely when a cut-off cycle
    runs again (a deleted key matches nothing, an inserted one updates to the same values, a
    change held is not inserted twice). Otherwise the model writes nothing.
    Argument: target_table — the member's target.
-#}
{% macro lakerep_target_model(target_table) %}
{%- set member = lakerep_member(target_table) -%}
{%- set registration = member.registration -%}
{%- set plan = lakerep_member_cycle(target_table) -%}
{%- set columns = lakerep_contract_columns() if execute else [] -%}
{%- set keys = config.get('unique_key') if execute else [] -%}
{%- set applies = plan is not none and plan.set_status == 'APPLIED'
    and plan.action in ['MIRROR', 'REFRESH', 'EXTERNAL_REFRESH'] -%}
{%- if not applies -%}
    {%- do lakerep_write_as('skip', reason='its set does not apply this cycle' if plan is not none else 'no Apply cycle planned it') -%}
{%- elif plan.action == 'REFRESH' -%}
    {%- do lakerep_write_as('overwrite') -%}
{%- elif plan.rows_to_write == 0 -%}
    {%- do lakerep_write_as('skip', reason='nothing to apply') -%}
{%- else -%}
    {%- do lakerep_write_as('statement', statement=_lakerep_target_merge(member, columns, keys, plan)) -%}
{%- endif %}

-- depends_on: {{ ref('apply_changes') }}

{{ _lakerep_target_rows(member, columns, plan, ['insert', 'update', 'load', 'append']) }}
{% endmacro %}


{#- SQL of the member's rows of the cycle whose row_action is one of `actions`, typed as the
    target's columns (and lakerep_deletes_key: the row deletes its key). A column the source added
    with a default (ADR 0012) has that default in an image from before it, which lacks the
    column: PostgreSQL gives it to every row that existed then (a CCD keeps its changes as they
    were). -#}
{% macro _lakerep_target_rows(member, columns, plan, actions) %}
    {%- set registration = member.registration -%}
    {%- set user_columns = registration.columns | map(attribute='name') | list -%}
    {%- set defaults = {} -%}
    {%- for column in lakerep_columns_taking_defaults(member.target_table) -%}
        {%- do defaults.update({column.name: column.default}) -%}
    {%- endfor -%}
    select
        {%- for name, data_type in columns %}
            {%- if name in defaults %}
        cast(
            if(
                map_contains_key(from_json(row_image, 'map<string, string>'), {{ lakerep_string_literal(name) }}),
                image.`{{ name }}`,
                {{ lakerep_string_literal(defaults[name]) }}
            ) as {{ data_type }}
        ) as `{{ name }}`,
            {%- elif name in user_columns %}
        cast(image.`{{ name }}` as {{ data_type }}) as `{{ name }}`,
            {%- else %}
        {{ name }},
            {%- endif %}
        {%- endfor %}
        row_action = 'delete' as lakerep_deletes_key
    from (
        select *, {{ lakerep_parse_image('row_image', registration) }} as image
        from {{ ref('apply_changes') }}
        where
            apply_cycle = {{ plan.apply_cycle if plan is not none else -1 }}
            and target_table = {{ lakerep_string_literal(member.target_table) }}
            and row_action in ({% for action in actions %}'{{ action }}'{{ ', ' if not loop.last }}{% endfor %})
    ) as member_rows
{% endmacro %}


{#- The target's MERGE: the keys to delete go, the other rows update or insert (a CCD target
    inserts the changes it does not hold). -#}
{% macro _lakerep_target_merge(member, columns, keys, plan) %}
    {%- set names = columns | map(attribute=0) | list -%}
    {%- set ccd = member.target_structure == 'ccd' -%}
    merge into {{ this }} as target
    using (
        {{ _lakerep_target_rows(member, columns, plan, ['append'] if ccd else ['insert', 'update', 'load', 'delete']) }}
    ) as changes
    on {% for key in keys %}target.`{{ key }}` <=> changes.`{{ key }}`{{ ' and ' if not loop.last }}{% endfor %}
    {%- if not ccd %}
    when matched and changes.lakerep_deletes_key then delete
    when matched then update set
        {%- for name in names %}
        `{{ name }}` = changes.`{{ name }}`{{ ',' if not loop.last }}
        {%- endfor %}
    {%- endif %}
    when not matched and not changes.lakerep_deletes_key then insert ({% for name in names %}`{{ name }}`{{ ', ' if not loop.last }}{% endfor %})
        values ({% for name in names %}changes.`{{ name }}`{{ ', ' if not loop.last }}{% endfor %})
{% endmacro %}
