{#-
    SQL of the plan rows that took effect: a member's row of a cycle whose set committed an
    APPLIED trail row, with an action that writes the target (MIRROR, REFRESH, EXTERNAL_REFRESH).
    A member's state is its latest such row. Arguments: plans, trail — relations or CTE names
    with apply_plan's and apply_trail's columns.
-#}
{% macro lakerep_applied_plans(plans, trail) %}
    select plans.*
    from {{ plans }} as plans
    inner join {{ trail }} as trail
        on
            plans.apply_cycle = trail.apply_cycle
            and plans.apply_qual = trail.apply_qual
            and plans.set_name = trail.set_name
    where
        trail.status = 'APPLIED'
        and plans.action in ('MIRROR', 'REFRESH', 'EXTERNAL_REFRESH')
{% endmacro %}


{#-
    SQL of each member's pending refresh marker (target_table, marker_id, kind, refresh_start,
    refresh_end): its latest 'refresh' or 'external' marker, unless an applied plan has consumed
    it. A newer marker supersedes every older one, consumed or not: the target holds what the
    latest refresh loaded, so an older window no longer describes it.
    Argument: applied — a relation or CTE name of lakerep_applied_plans().
-#}
{% macro lakerep_pending_markers(applied) %}
    select latest.*
    from (
        select
            markers.target_table,
            max_by(markers.marker_id, struct(markers.marked_at, markers.marker_id)) as marker_id,
            max_by(markers.kind, struct(markers.marked_at, markers.marker_id)) as kind,
            max_by(markers.refresh_start, struct(markers.marked_at, markers.marker_id)) as refresh_start,
            max_by(markers.refresh_end, struct(markers.marked_at, markers.marker_id)) as refresh_end
        from {{ ref('stg_refresh_markers') }} as markers
        where markers.kind in ('refresh', 'external')
        group by markers.target_table
    ) as latest
    where latest.marker_id not in (
        select consumed.marker_id from {{ applied }} as consumed
        where consumed.marker_id is not null
    )
{% endmacro %}


{#-
    The current Apply cycle's number, as a literal for the models that run in the cycle after
    apply_plan (0 before apply_plan has planned a cycle, and at parse time): read with the
    member plans, once per invocation (lakerep_current_plan_rows), so no statement of the cycle
    reads apply_plan again to find it. A member's change model holds the rows of the cycle that
    last wrote it, which is an older one when the member had nothing to do since.
-#}
{% macro lakerep_current_apply_cycle() -%}
    {{ lakerep_current_plan_rows() | map(attribute='apply_cycle') | max | default(0, true) }}
{%- endmacro %}


{#-
    SQL of the latest Apply cycle's number, for a view: it reads apply_plan whenever it is queried.
    The models of the cycle use the literal lakerep_current_apply_cycle().
-#}
{% macro lakerep_latest_apply_cycle() -%}
    (select max(apply_cycle) from {{ ref('apply_plan') }})
{%- endmacro %}


{#- SQL of the latest Apply cycle's plan, for a view: apply_plan's rows of its highest cycle. -#}
{% macro lakerep_current_plan() %}
    select * from {{ ref('apply_plan') }}
    where apply_cycle = {{ lakerep_latest_apply_cycle() }}
{% endmacro %}


{#- SQL of the plan of the cycle now running, for its models after apply_plan: one read of it. -#}
{% macro lakerep_cycle_plan() %}
    select * from {{ ref('apply_plan') }}
    where apply_cycle = {{ lakerep_current_apply_cycle() }}
{% endmacro %}


{#-
    SQL of the given columns of every member's change model in the current Apply cycle, with the
    member's target_table (typed, empty when no member is declared). A member that cannot change
    its target this cycle has no rows in it, and its change model is not read
    (lakerep_reads_member_this_cycle). Arguments: columns — [name, data type] pairs;
    apply_cycle — SQL of the cycle's number (default the literal lakerep_current_apply_cycle();
    a view passes lakerep_latest_apply_cycle()).
-#}
{% macro lakerep_member_change_rows(columns, apply_cycle=none) %}
    {%- set entries = [] -%}
    {%- for entry in lakerep_member_change_models() if lakerep_reads_member_this_cycle(entry.target_table) -%}
        {%- do entries.append(entry) -%}
    {%- endfor -%}
    {% for entry in entries %}
        select
            {{ lakerep_string_literal(entry.target_table) }} as target_table,
            {%- for name, data_type in columns %}
                {{ name }}{{ ',' if not loop.last }}
            {%- endfor %}
        from {{ entry.changes }}
        where apply_cycle = {{ apply_cycle or lakerep_current_apply_cycle() }}
        {{ 'union all' if not loop.last }}
    {% else %}
        select
            cast(null as string) as target_table,
            {%- for name, data_type in columns %}
                cast(null as {{ data_type }}) as {{ name }}{{ ',' if not loop.last }}
            {%- endfor %}
        where false
    {% endfor %}
{% endmacro %}
