{#-
    dbt-spark's MERGE (spark__get_merge_sql), with one more condition on the target for a model
    whose config `lakerep_merge_floor` names a log position column of its unique key (CD, UOW,
    non-condensed CCDs): `DBT_INTERNAL_DEST.<column> >= <floor>`, the cycle's
    lowest position (_lakerep_merge_floor). A row the cycle merges is at or above it, so a target
    row it matches is too; Delta keeps a target-only condition of ON as a file filter, so the
    merge reads the files of recent positions only, not the table's whole history (issue 21: a
    cycle's cost follows its changes, not the size of the tables). Without a floor (nothing read,
    or a key without the column) it is dbt-spark's merge unchanged.
    A model whose rows never change once written (config `lakerep_rows_never_change`: CD and UOW,
    whose key is a log position, and a log record is immutable) merges without `when matched`:
    a row already held is left as it is, and Delta's insert-only MERGE reads the target once to
    leave out what it holds, where an update clause costs a pass to find the touched files, a
    materialized source and a rewrite (issue 21: three Spark jobs fewer per CD merge); and when
    its cycle can only write new rows, with an idempotent INSERT (_lakerep_idempotent_append).
    A model whose config `lakerep_update_if_later` names ordering columns (a condensed CCD:
    IBMSNAP_COMMITSEQ, then IBMSNAP_INTENTSEQ) updates a matched row only when the source row is
    later by them, and inserts the rows of new keys. The model need not read its own table to
    leave out what is not later: the MERGE reads it once (issue 21).
    A member's target model (config `lakerep_member_target`) deletes and merges in one MERGE
    (lakerep_target_merge_sql).
    The project's own MERGEs match keys null-safe, as a key column of a source table may
    be null (a log position never is).
-#}
{% macro spark__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates) %}
    {%- set predicates = [] if incremental_predicates is none else [] + incremental_predicates -%}
    {%- set column = config.get('lakerep_merge_floor') -%}
    {%- set keys = [unique_key] if unique_key is string else (unique_key or []) -%}
    {%- if column is not none and column in keys -%}
        {%- set floor = _lakerep_merge_floor() -%}
        {%- if floor is not none -%}
            {%- do predicates.append('DBT_INTERNAL_DEST.' ~ column ~ ' >= ' ~ lakerep_string_literal(floor)) -%}
        {%- endif -%}
    {%- endif -%}
    {%- set member_target = config.get('lakerep_member_target') -%}
    {%- if member_target and keys -%}
        {{ return(lakerep_target_merge_sql(target, source, _lakerep_key_match(keys, predicates), member_target)) }}
    {%- endif -%}
    {%- set later_by = config.get('lakerep_update_if_later') -%}
    {%- if later_by and keys -%}
        {{ return(_lakerep_keyed_merge_sql(target, source, keys, predicates, later_by)) }}
    {%- endif -%}
    {%- if config.get('lakerep_rows_never_change', false) and keys -%}
        {%- set transaction = _lakerep_idempotent_append() -%}
        {%- if transaction is not none -%}
            {{ return(_lakerep_idempotent_append_sql(target, source, transaction)) }}
        {%- endif -%}
        {{ return(_lakerep_keyed_merge_sql(target, source, keys, predicates)) }}
    {%- endif -%}
    {{ return(dbt.spark__get_merge_sql(target, source, unique_key, dest_columns, predicates)) }}
{% endmacro %}


{#-
    A MERGE on the keys (null-safe) and `predicates` that inserts the source rows of keys the
    target does not hold. Without `later_by` it changes no held row; with it (ordering columns)
    it replaces a held row by a source row that is later: greater in the first column, or equal
    in it and greater in the next, and so on.
-#}
{% macro _lakerep_keyed_merge_sql(target, source, keys, predicates, later_by=none) %}
    {%- set later = [] -%}
    {%- for column in later_by or [] -%}
        {%- set terms = [] -%}
        {%- for earlier in later_by[:loop.index0] -%}
            {%- do terms.append('DBT_INTERNAL_SOURCE.' ~ earlier ~ ' = DBT_INTERNAL_DEST.' ~ earlier) -%}
        {%- endfor -%}
        {%- do terms.append('DBT_INTERNAL_SOURCE.' ~ column ~ ' > DBT_INTERNAL_DEST.' ~ column) -%}
        {%- do later.append('(' ~ terms | join(' and ') ~ ')') -%}
    {%- endfor -%}
    merge into {{ target }} as DBT_INTERNAL_DEST
    using {{ source }} as DBT_INTERNAL_SOURCE
    on {{ _lakerep_key_match(keys, predicates) }}
    {%- if later %}
    when matched and ({{ later | join(' or ') }}) then update set *
    {%- endif %}
    when not matched then insert *
{% endmacro %}


{#- The ON condition of the project's own MERGEs: `predicates`, and each key equal null-safe. -#}
{% macro _lakerep_key_match(keys, predicates) %}
    {%- set conditions = [] + predicates -%}
    {%- for key in keys -%}
        {%- do conditions.append('DBT_INTERNAL_SOURCE.`' ~ key ~ '` <=> DBT_INTERNAL_DEST.`' ~ key ~ '`') -%}
    {%- endfor -%}
    {{ return(conditions | join(' and ')) }}
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
{% macro _lakerep_merge_floor() %}
    {%- set reads = lakerep_cycle_reads() -%}
    {%- set lowest = reads | map(attribute='lowest_position') | reject('none') | list if reads else [] -%}
    {%- if not lowest -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return((lowest + [lakerep_cycle_window().previous_resync_position]) | min) }}
{% endmacro %}


{#-
    Idempotent appends (issue 21, ADR 0006). A CD or UOW model (config
    `lakerep_idempotent_append`) whose cycle reads new landing batches only writes rows that no
    earlier cycle wrote: their keys are log positions of those batches, and a position is landed
    once (staging quarantines duplicates). Only an earlier attempt at the same cycle, cut off
    before its commit record, can have written them. So such a cycle appends with a plain
    INSERT, made idempotent by Delta's transaction identifiers: the append commits
    (txnAppId 'lakerep-capture:<run that opened the cycle>', txnVersion <cycle number>), and
    Delta leaves out an append whose table already holds that pair, which is what finishing a
    cut-off cycle does. An INSERT reads the new rows once; the insert-only MERGE it replaces
    also read the table's recent files to leave out the keys it held, in four Spark jobs more.
    The MERGE stays where a cycle can meet rows already held: a source that reads again from its
    restart tokens, and a cold start (its pre-hook empties the table, so a cut-off cold-start
    cycle finished under the same number must write again).
    The config names the read the model's rows come from: 'session' (every source's: the UOW
    table) or 'table:OWNER.TABLE' (one source's: its CD table).
-#}


{#- The transaction of the model now materializing: {'app_id', 'version'}, or none to merge. -#}
{% macro _lakerep_idempotent_append() %}
    {%- set scope = config.get('lakerep_idempotent_append') -%}
    {%- if scope is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set window = lakerep_capture_window() -%}
    {%- set name, _, source = scope.partition(':') -%}
    {%- if name == 'session' -%}
        {%- set reread_from = window.reread_from -%}
    {%- elif name == 'table' and source -%}
        {%- set reread_from = window.sources.get(source, {}).get('reread_from') -%}
    {%- else -%}
        {{ exceptions.raise_compiler_error(
            'lakerep_idempotent_append must be session or table:OWNER.TABLE, not ' ~ scope
        ) }}
    {%- endif -%}
    {%- if window.cold_start or reread_from is not none or window.get('run_id') is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return({'app_id': 'lakerep-capture:' ~ window.run_id, 'version': window.cycle_number}) }}
{% endmacro %}


{#-
    SQL of the append, after setting the session's transaction identifiers for it (Delta reads
    them from the session). _lakerep_end_idempotent_append unsets them once the statement has
    run; on-run-start and on-run-end unset them too, in case a failed statement left them set.
-#}
{% macro _lakerep_idempotent_append_sql(target, source, transaction) %}
    {%- call statement('lakerep_txn_app_id') -%}
        set spark.databricks.delta.write.txnAppId = {{ transaction.app_id }}
    {%- endcall -%}
    {%- call statement('lakerep_txn_version') -%}
        set spark.databricks.delta.write.txnVersion = {{ transaction.version }}
    {%- endcall -%}
    {%- do graph.setdefault('lakerep_idempotent_append', {}).update({'set_by': model.unique_id}) -%}
    {%- set columns = adapter.get_columns_in_relation(target) | map(attribute='quoted') | join(', ') -%}
    insert into {{ target }} ({{ columns }})
    select {{ columns }} from {{ source }}
{% endmacro %}
