{#-
    The body of the incremental materialization (and of prune, which adds its deletes): the
    model's write (lakerep_model_write) in one statement, the table created with its contract's
    columns on a first build or a full refresh, nothing at all for a skip.
    Argument: compiled_sql — the model's compiled SQL.
-#}
{% macro lakerep_incremental_materialization(compiled_sql) %}
    {%- set write = lakerep_model_write() -%}
    {%- set existing = load_cached_relation(this) -%}
    {%- set rebuild = existing is none or existing.is_view or should_full_refresh() -%}
    {%- if write.mode == 'skip' and not rebuild -%}
        {{ log(this ~ ': nothing to write this cycle (' ~ write.reason ~ ')') }}
        {%- call noop_statement('main', 'SKIP nothing to write (' ~ write.reason ~ ')', 'SKIP', 0) -%}{%- endcall -%}
        {{ return({'relations': [this]}) }}
    {%- endif -%}
    {%- if not rebuild -%}
        {%- set rebuild = not lakerep_table_matches_contract(existing, replaceable=write.mode == 'overwrite') -%}
    {%- endif -%}
    {%- do lakerep_node_file_skipping() -%}
    {{ run_hooks(pre_hooks) }}
    {%- if rebuild -%}
        {%- if existing is not none and existing.is_view -%}
            {%- do adapter.drop_relation(existing) -%}
        {%- endif -%}
        {%- call statement('lakerep_create') -%}
            {{ lakerep_create_table_sql(this) }}
        {%- endcall -%}
        {%- set write = {'mode': 'append', 'txn': none} if write.mode in ['skip', 'merge'] else write -%}
    {%- endif -%}
    {%- if write.get('txn') is not none -%}
        {%- do _lakerep_set_txn(write.txn) -%}
    {%- endif -%}
    {%- call statement('main') -%}
        {{ lakerep_write_sql(this, compiled_sql, write) }}
    {%- endcall -%}
    {%- if write.get('txn') is not none -%}
        {%- do _lakerep_reset_txn() -%}
    {%- endif -%}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [this]}) }}
{% endmacro %}


{#-
    Sets the session's Delta transaction identifiers for the next write (Delta reads them from the
    session): the write commits only if the table holds no transaction of that app id at that
    version or above, so a write repeated by a cycle finished after a crash commits nothing twice.
-#}
{% macro _lakerep_set_txn(txn) %}
    {%- call statement('lakerep_txn_app_id') -%}
        set spark.databricks.delta.write.txnAppId = {{ txn.app_id }}
    {%- endcall -%}
    {%- call statement('lakerep_txn_version') -%}
        set spark.databricks.delta.write.txnVersion = {{ txn.version }}
    {%- endcall -%}
{% endmacro %}


{#- Unsets them again (on-run-start and on-run-end do too, in case a failed write left them set). -#}
{% macro _lakerep_reset_txn() %}
    {%- for setting in ['txnAppId', 'txnVersion'] -%}
        {%- call statement('lakerep_txn_reset') -%}
            {{ lakerep_idempotent_append_reset_sql(setting) }}
        {%- endcall -%}
    {%- endfor -%}
{% endmacro %}
