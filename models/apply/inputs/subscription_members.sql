{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The subscription members as declared in subscriptions.yml (SPEC §2.4): one row per member,
    with its set's error policy and its source's DISABLE_REFRESH.
-#}

with

members as (
    {% for member in lakerep_members() %}
        select
            {{ lakerep_string_literal(member.apply_qual) }} as apply_qual,
            {{ lakerep_string_literal(member.set_name) }} as set_name,
            {{ lakerep_string_literal(member.on_operational_error) }} as on_operational_error,
            {{ lakerep_string_literal(member.source_owner) }} as source_owner,
            {{ lakerep_string_literal(member.source_table) }} as source_table,
            {{ lakerep_string_literal(generate_schema_name('replica', none)) }} as target_owner,
            {{ lakerep_string_literal(member.target_table) }} as target_table,
            {{ lakerep_string_literal(member.target_structure) }} as target_structure,
            cast({{ member.structure_code }} as smallint) as structure_code,
            {{ member.registration.disable_refresh }} as disable_refresh
        {{ 'union all' if not loop.last }}
    {% else %}
        select
            cast(null as string) as apply_qual, cast(null as string) as set_name,
            cast(null as string) as on_operational_error, cast(null as string) as source_owner,
            cast(null as string) as source_table, cast(null as string) as target_owner,
            cast(null as string) as target_table, cast(null as string) as target_structure,
            cast(null as smallint) as structure_code, cast(null as boolean) as disable_refresh
        where false
    {% endfor %}
)

select * from members
