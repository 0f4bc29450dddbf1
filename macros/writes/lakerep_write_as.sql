{#-
    How the model now compiling writes its table this cycle, decided by the model itself while
    it compiles (beside its SQL) and read by the incremental materialization (lakerep_model_write).
    mode is one of:
      skip       nothing to write: no statement, no commit (reason says why, for dbt's log);
      append     INSERT INTO the table; txn {app_id, version} makes it idempotent (Delta commits
                 an append of an app id once per version, so a cycle finished after a crash
                 adds nothing twice);
      overwrite  INSERT OVERWRITE: the table becomes the model's rows, in one commit;
      merge      MERGE on the columns `on`: with later_by (columns), a matched row is replaced by
                 a later one, else left as it is; unmatched rows are inserted; target_filter is a
                 predicate on the table (DBT_INTERNAL_DEST) that Delta keeps as a file filter;
      statement  the model's own statement (statement: its text), for a write none of these says.
    Returns '' so that it can be called as {{ ... }} or {% do %}.
-#}
{% macro lakerep_write_as(mode, reason=none, txn=none, on=none, later_by=none, target_filter=none, statement=none) %}
    {%- if mode not in ['skip', 'append', 'overwrite', 'merge', 'statement'] -%}
        {{ exceptions.raise_compiler_error('lakerep_write_as: mode must be skip, append, overwrite, merge or statement, not ' ~ mode) }}
    {%- endif -%}
    {%- set memo = graph.setdefault('lakerep_writes', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- do memo.clear() -%}
        {%- do memo.update({'invocation_id': invocation_id}) -%}
    {%- endif -%}
    {%- do memo.update({model.unique_id: {
        'mode': mode, 'reason': reason, 'txn': txn, 'on': on, 'later_by': later_by,
        'target_filter': target_filter, 'statement': statement,
    }}) -%}
    {{ return('') }}
{% endmacro %}
