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
{% macro lakerep_idempotent_append() %}
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
    them from the session). lakerep_end_idempotent_append unsets them once the statement has
    run; on-run-start and on-run-end unset them too, in case a failed statement left them set.
-#}
{% macro lakerep_idempotent_append_sql(target, source, transaction) %}
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


{#- Unsets the transaction identifiers after the model that set them (no statement otherwise). -#}
{% macro lakerep_end_idempotent_append() %}
    {%- set memo = graph.setdefault('lakerep_idempotent_append', {}) -%}
    {%- if memo.get('set_by') == model.unique_id -%}
        {%- for setting in ['txnAppId', 'txnVersion'] -%}
            {%- call statement('lakerep_txn_reset') -%}
                {{ lakerep_idempotent_append_reset_sql(setting) }}
            {%- endcall -%}
        {%- endfor -%}
        {%- do memo.update({'set_by': none}) -%}
    {%- endif -%}
{% endmacro %}


{#- Unsets one of the session's transaction identifiers: setting is txnAppId or txnVersion. -#}
{% macro lakerep_idempotent_append_reset_sql(setting) -%}
    reset spark.databricks.delta.write.{{ setting }}
{%- endmacro %}
