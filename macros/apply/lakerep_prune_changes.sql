{#-
    Prunes the CD and UOW tables (SPEC §6) and returns what it did, one dict per table:
    table_owner, table_name, prune_limit, retention_cutoff, rows_deleted, cd_old_synchpoint.
    - A CD table loses the rows of UOWs committed at or before the lowest SYNCHPOINT of the
      members that read its source (all of Capture's synchpoint when no member does; nothing
      while a member is at SYNCHPOINT 0), the rows of UOWs older than RETENTION_LIMIT (minutes
      before Capture's SYNCHTIME) whoever still needs them, and the rows of rolled-back UOWs.
    - The UOW table loses the UOWs at or below the lowest SYNCHPOINT of all members, and those
      older than RETENTION_LIMIT.
    - The register's CD_OLD_SYNCHPOINT moves up to what was pruned, so a member left behind
      sees its gap. Called by the capture_prune model when var lakerep_prune is true.
-#}
{% macro lakerep_prune_changes() %}
    {%- set lowest = lakerep_lowest_position() | trim -%}
    {%- set register = ref('register') -%}
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
    {%- set retained_after = run_query(
        'select coalesce(max(IBMSNAP_COMMITSEQ), ' ~ lakerep_string_literal(lowest) ~ ') as position from ' ~ uow
        ~ " where IBMSNAP_LOGMARKER < timestamp'" ~ cutoff ~ "'"
    ).rows[0].position -%}
    {%- set limits = {} -%}
    {%- for row in run_query(
        'select SOURCE_OWNER, SOURCE_TABLE, min(SYNCHPOINT) as prune_limit from ' ~ ref('pruning_control')
        ~ ' group by SOURCE_OWNER, SOURCE_TABLE'
    ).rows -%}
        {%- do limits.update({row.SOURCE_OWNER ~ '.' ~ row.SOURCE_TABLE: row.prune_limit}) -%}
    {%- endfor -%}
    {%- set uow_limit = ([synchpoint] + (limits.values() | list)) | min -%}
    {#- The register first: CD_OLD_SYNCHPOINT is raised before a row goes, so a prune cut off
        between the two leaves a gap to refresh, never a hole a member would read through. -#}
    {%- set plans = [] -%}
    {%- set raised = [] -%}
    {%- for entry in lakerep_registered_models() -%}
        {%- set limit = [limits.get(entry.source_owner ~ '.' ~ entry.source_table, synchpoint), synchpoint] | min -%}
        {%- set source = held.get(entry.source_owner ~ '.' ~ entry.source_table) -%}
        {%- set cd_old = [limit, retained_after, (source.CD_OLD_SYNCHPOINT if source else none) or lowest] | max -%}
        {%- do plans.append({'entry': entry, 'limit': limit, 'cd_old': cd_old}) -%}
        {%- do raised.append(
            'when SOURCE_OWNER = ' ~ lakerep_string_literal(entry.source_owner) ~ ' and SOURCE_TABLE = '
            ~ lakerep_string_literal(entry.source_table) ~ ' then ' ~ lakerep_string_literal(cd_old)
        ) -%}
    {%- endfor -%}
    {%- if raised -%}
        {%- do run_query(
            'update ' ~ register ~ ' set CD_OLD_SYNCHPOINT = case ' ~ raised | join(' ')
            ~ " else CD_OLD_SYNCHPOINT end where GLOBAL_RECORD = 'N'"
        ) -%}
    {%- endif -%}
    {%- set results = [] -%}
    {%- for plan in plans -%}
        {%- set outcome = run_query(
            'merge into ' ~ plan.entry.cd ~ ' as cd using (select distinct IBMSNAP_UOWID from ' ~ uow
            ~ ' where IBMSNAP_COMMITSEQ <= ' ~ lakerep_string_literal(plan.limit)
            ~ " or IBMSNAP_LOGMARKER < timestamp'" ~ cutoff ~ "'"
            ~ ' union select IBMSNAP_UOWID from ' ~ ref('uow_rollbacks')
            ~ ') as gone on cd.IBMSNAP_UOWID = gone.IBMSNAP_UOWID when matched then delete'
        ) -%}
        {%- do results.append({
            'table_owner': plan.entry.cd.schema, 'table_name': plan.entry.cd.identifier, 'prune_limit': plan.limit,
            'retention_cutoff': cutoff, 'rows_deleted': outcome.rows[0].num_deleted_rows,
            'cd_old_synchpoint': plan.cd_old,
        }) -%}
    {%- endfor -%}
    {%- set outcome = run_query(
        'delete from ' ~ uow ~ ' where IBMSNAP_COMMITSEQ <= ' ~ lakerep_string_literal(uow_limit)
        ~ " or IBMSNAP_LOGMARKER < timestamp'" ~ cutoff ~ "'"
    ) -%}
    {%- do results.append({
        'table_owner': uow.schema, 'table_name': uow.identifier, 'prune_limit': uow_limit,
        'retention_cutoff': cutoff, 'rows_deleted': outcome.rows[0].num_affected_rows, 'cd_old_synchpoint': none,
    }) -%}
    {{ return(results) }}
{% endmacro %}
