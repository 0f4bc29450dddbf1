{#-
    dbt-spark's MERGE (spark__get_merge_sql), with one more condition on the target for a model
    whose config `lakerep_merge_floor` names a log position column of its unique key (CD, UOW,
    non-condensed CCDs): `DBT_INTERNAL_DEST.<column> >= <floor>`, the cycle's
    lowest position (lakerep_merge_floor). A row the cycle merges is at or above it, so a target
    row it matches is too; Delta keeps a target-only condition of ON as a file filter, so the
    merge reads the files of recent positions only, not the table's whole history (issue 21: a
    cycle's cost follows its changes, not the size of the tables). Without a floor (nothing read,
    or a key without the column) it is dbt-spark's merge unchanged.
-#}
{% macro spark__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates) %}
    {%- set predicates = [] if incremental_predicates is none else [] + incremental_predicates -%}
    {%- set column = config.get('lakerep_merge_floor') -%}
    {%- set keys = [unique_key] if unique_key is string else (unique_key or []) -%}
    {%- if column is not none and column in keys -%}
        {%- set floor = lakerep_merge_floor() -%}
        {%- if floor is not none -%}
            {%- do predicates.append('DBT_INTERNAL_DEST.' ~ column ~ ' >= ' ~ lakerep_string_literal(floor)) -%}
        {%- endif -%}
    {%- endif -%}
    {{ return(dbt.spark__get_merge_sql(target, source, unique_key, dest_columns, predicates)) }}
{% endmacro %}


{#-
    The lowest log position a row written this capture cycle can carry: the lowest of what the
    cycle reads (lakerep_cycle_reads: the registered tables' changes it reads, those at or above
    the previous resync position, the starts of the snapshots landed in the window) and the
    previous resync position. A CD row is a change read; a UOW row commits after a change of its
    UOW that is read, or at or above the previous resync position (open at the previous cycle's
    end); a CCD row is a committed change or a snapshot row. None when the cycle reads nothing,
    or before those relations are built. No statement of its own: the reads are asked once per
    invocation anyway.
-#}
{% macro lakerep_merge_floor() %}
    {%- set reads = lakerep_cycle_reads() -%}
    {%- set lowest = reads | map(attribute='lowest_position') | reject('none') | list if reads else [] -%}
    {%- if not lowest -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return((lowest + [_lakerep_cycle_window().previous_resync_position]) | min) }}
{% endmacro %}
