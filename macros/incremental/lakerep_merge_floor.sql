{#-
    dbt-spark's MERGE (spark__get_merge_sql), with one more condition on the target for a model
    whose config `lakerep_merge_floor` names a log position column of its unique key (CD, UOW,
    non-condensed CCDs): `DBT_INTERNAL_DEST.<column> >= <floor>`, the cycle's
    lowest position (lakerep_merge_floor). A row the cycle merges is at or above it, so a target
    row it matches is too; Delta keeps a target-only condition of ON as a file filter, so the
    merge reads the files of recent positions only, not the table's whole history (issue 21: a
    cycle's cost follows its changes, not the size of the tables). Without a floor (nothing read,
    or a key without the column) it is dbt-spark's merge unchanged.
    A model whose rows never change once written (config `lakerep_rows_never_change`: CD and UOW,
    whose key is a log position, and a log record is immutable) merges without `when matched`:
    a row already held is left as it is, and Delta's insert-only MERGE reads the target once to
    leave out what it holds, where an update clause costs a pass to find the touched files, a
    materialized source and a rewrite (issue 21: three Spark jobs fewer per CD merge); and when
    its cycle can only write new rows, with an idempotent INSERT (lakerep_idempotent_append).
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
    {%- if config.get('lakerep_rows_never_change', false) and keys -%}
        {%- set transaction = lakerep_idempotent_append() -%}
        {%- if transaction is not none -%}
            {{ return(lakerep_idempotent_append_sql(target, source, transaction)) }}
        {%- endif -%}
        {{ return(lakerep_insert_new_rows_sql(target, source, keys, predicates)) }}
    {%- endif -%}
    {{ return(dbt.spark__get_merge_sql(target, source, unique_key, dest_columns, predicates)) }}
{% endmacro %}


{#- A MERGE that inserts the source rows whose key the target does not hold, and changes nothing. -#}
{% macro lakerep_insert_new_rows_sql(target, source, keys, predicates) %}
    {%- set conditions = [] + predicates -%}
    {%- for key in keys -%}
        {%- do conditions.append('DBT_INTERNAL_SOURCE.' ~ key ~ ' = DBT_INTERNAL_DEST.' ~ key) -%}
    {%- endfor -%}
    merge into {{ target }} as DBT_INTERNAL_DEST
    using {{ source }} as DBT_INTERNAL_SOURCE
    on {{ conditions | join(' and ') }}
    when not matched then insert *
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
