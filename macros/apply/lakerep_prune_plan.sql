{#-
    What this cycle's prune does (SPEC §6), decided once per dbt invocation and only read here:
    one dict per table, in the order the capture_prune model logs and its materialization (prune)
    runs them: table_owner, table_name, prune_limit, retention_cutoff, cd_old_synchpoint,
    rows_deleted (the rows the prune deletes, counted before it deletes them), delete_sql (the
    statement that deletes them). Empty when the cycle does not prune (lakerep_cycle_prunes) or
    Capture has no synchpoint yet.
    - A CD table loses the rows of UOWs committed at or before the lowest SYNCHPOINT of the
      members that read its source (all of Capture's synchpoint when no member does; nothing
      while a member is at SYNCHPOINT 0), the rows of UOWs older than RETENTION_LIMIT (minutes
      before Capture's SYNCHTIME) whoever still needs them, and the rows of rolled-back UOWs.
    - The UOW table loses the UOWs at or below the lowest SYNCHPOINT of all members, and those
      older than RETENTION_LIMIT.
    - CD_OLD_SYNCHPOINT rises to what is pruned (cd_old_synchpoint): capture_prune logs it before
      any row goes, and the register view shows it, so a member left behind sees its gap and a
      prune cut off in between leaves a gap to refresh, never a hole a member would read through.
    The members' SYNCHPOINTs are pruning_control's as the cycle starts (the prune runs after
    Capture and before Apply, which only moves them up; a member declared since then counts as
    SYNCHPOINT 0), and CD_OLD_SYNCHPOINT the register view's: both read as relations, since the
    register view reads capture_prune.
-#}
{% macro lakerep_prune_plan() %}
    {%- if not (execute and lakerep_cycle_prunes()) -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set memo = graph.setdefault('lakerep_prune_plan', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- do memo.update({'invocation_id': invocation_id, 'plan': _lakerep_prune_plan()}) -%}
    {%- endif -%}
    {{ return(memo.plan) }}
{% endmacro %}


{% macro _lakerep_prune_plan() %}
    {%- set register = lakerep_control_relation('register') -%}
    {%- set pruning_control = lakerep_control_relation('pruning_control', schema='apply') -%}
    {%- if register is none or pruning_control is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set lowest = lakerep_lowest_position() | trim -%}
    {%- set uow = ref('uow') -%}
    {#- One read of the register: the global record, and each source's CD_OLD_SYNCHPOINT. -#}
    {%- set held = {'global': none} -%}
    {%- for row in run_query(
        'select GLOBAL_RECORD, SOURCE_OWNER, SOURCE_TABLE, SYNCHPOINT, SYNCHTIME, CD_OLD_SYNCHPOINT from ' ~ register
    ).rows -%}
        {%- do held.update({'global' if row.GLOBAL_RECORD == 'Y' else row.SOURCE_OWNER ~ '.' ~ row.SOURCE_TABLE: row}) -%}
    {%- endfor -%}
    {%- set global = held.global -%}
    {%- if global is none or global.SYNCHPOINT is none -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set synchpoint = global.SYNCHPOINT -%}
    {%- set cutoff = lakerep_retention_cutoff(global.SYNCHTIME) -%}
    {%- set older_than_retention = "IBMSNAP_LOGMARKER < timestamp'" ~ cutoff ~ "'" -%}
    {%- set retained_after = run_query(
        'select coalesce(max(IBMSNAP_COMMITSEQ), ' ~ lakerep_string_literal(lowest) ~ ') as position from ' ~ uow
        ~ ' where ' ~ older_than_retention
    ).rows[0].position -%}
    {%- set limits = {} -%}
    {%- set controlled = [] -%}
    {%- for row in run_query(
        'select SOURCE_OWNER, SOURCE_TABLE, TARGET_TABLE, SYNCHPOINT from ' ~ pruning_control
    ).rows -%}
        {%- set source_name = row.SOURCE_OWNER ~ '.' ~ row.SOURCE_TABLE -%}
        {%- do controlled.append(row.TARGET_TABLE) -%}
        {%- do limits.update({source_name: [limits.get(source_name, row.SYNCHPOINT), row.SYNCHPOINT] | min}) -%}
    {%- endfor -%}
    {#- A member declared since pruning_control was last built is not in it yet: it has copied
        nothing (SYNCHPOINT 0), so nothing of its source goes. -#}
    {%- for member in lakerep_members() if member.target_table not in controlled -%}
        {%- do limits.update({member.source_owner ~ '.' ~ member.source_table: lowest}) -%}
    {%- endfor -%}
    {%- set steps = [] -%}
    {%- for entry in lakerep_registered_models() -%}
        {%- set limit = [limits.get(entry.source_owner ~ '.' ~ entry.source_table, synchpoint), synchpoint] | min -%}
        {%- set source = held.get(entry.source_owner ~ '.' ~ entry.source_table) -%}
        {%- set gone = 'select IBMSNAP_UOWID from ' ~ uow ~ ' where IBMSNAP_COMMITSEQ <= ' ~ lakerep_string_literal(limit)
            ~ ' or ' ~ older_than_retention ~ ' union select IBMSNAP_UOWID from ' ~ ref('uow_rollbacks') -%}
        {%- do steps.append({
            'table_owner': entry.cd.schema, 'table_name': entry.cd.identifier, 'prune_limit': limit,
            'cd_old_synchpoint': [limit, retained_after, (source.CD_OLD_SYNCHPOINT if source else none) or lowest] | max,
            'count_sql': 'from ' ~ entry.cd ~ ' where IBMSNAP_UOWID in (' ~ gone ~ ')',
            'delete_sql': 'merge into ' ~ entry.cd ~ ' as cd using (' ~ gone ~ ') as gone'
                ~ ' on cd.IBMSNAP_UOWID = gone.IBMSNAP_UOWID when matched then delete',
        }) -%}
    {%- endfor -%}
    {%- set uow_limit = ([synchpoint] + (limits.values() | list)) | min -%}
    {%- set uow_gone = 'IBMSNAP_COMMITSEQ <= ' ~ lakerep_string_literal(uow_limit) ~ ' or ' ~ older_than_retention -%}
    {%- do steps.append({
        'table_owner': uow.schema, 'table_name': uow.identifier, 'prune_limit': uow_limit, 'cd_old_synchpoint': none,
        'count_sql': 'from ' ~ uow ~ ' where ' ~ uow_gone,
        'delete_sql': 'delete from ' ~ uow ~ ' where ' ~ uow_gone,
    }) -%}
    {#- One statement counts what every step deletes. -#}
    {%- set counts = [] -%}
    {%- for step in steps -%}
        {%- do counts.append('select ' ~ loop.index0 ~ ' as step, count(*) as rows_deleted ' ~ step.pop('count_sql')) -%}
    {%- endfor -%}
    {%- for row in run_query(counts | join(' union all ')).rows -%}
        {%- do steps[row.step | int].update({'retention_cutoff': cutoff, 'rows_deleted': row.rows_deleted}) -%}
    {%- endfor -%}
    {{ return(steps) }}
{% endmacro %}
