{#-
    What this cycle's prune does (SPEC §6), decided once per dbt invocation and only read here: a
    dict with steps, one per registered source and one for the UOW rows, in the order the
    capture_prune model logs them (pruned_kind CD or UOW, source_owner, source_table, prune_limit,
    retention_cutoff, cd_old_synchpoint, rows_deleted, counted before the delete), and
    delete_sql, the one statement that deletes them all from the captured log (a MERGE: Delta's
    DELETE takes no subquery). Empty steps when the cycle does not prune (lakerep_cycle_prunes)
    or Capture has no synchpoint yet.
    - A source's CD rows go when their UOW committed at or before the lowest SYNCHPOINT of the
      members that read the source (all of Capture's synchpoint when no member does; nothing
      while a member is at SYNCHPOINT 0), or is older than RETENTION_LIMIT (minutes before
      Capture's SYNCHTIME) whoever still needs it, or rolled back.
    - The UOW rows go at or below the lowest SYNCHPOINT of all members, and those older than
      RETENTION_LIMIT.
    - The landed log records (lakerep_raw.source_log) of a UOW that ended at or below the UOW
      rows' limit go too, once a completed capture cycle has read their landing batch: every
      model reads the judged copy of a record (int_log_records_judged). The table's highest
      landing batch stays, whatever it holds: the next batch number is one above it
      (lakerep.landing.next_landing_batch). So do the judged copies of those UOWs' changes
      (I, U, D; valid: a quarantined record stays, as its evidence), but for the highest
      landing batch's and the last judging cycle's (what says what was judged, and which cycle
      began: lakerep_cycle_facts) and the record at the log's oldest position (the log's bounds
      stay: int_log_bounds). Every judged end stays: it tells a redelivered record of a pruned
      UOW (lakerep.landing._not_pruned), and the checks of a UOW's end; the CCD keeps each
      change, where a value an update did not send is found (lakerep_unsent_values_filled). So
      do the Debezium events (lakerep_raw.debezium_events) of those UOWs, by the same rule: an
      event, BEGIN, change or END, names its transaction id and a position at or below its
      commit, which is the first valid commit of that id at or above it (the rule
      lakerep.landing._events_not_pruned applies to a redelivery); not the snapshot reads, which
      stay as the source snapshots do, nor the one tombstone the events' dedupe keeps.
      landing_delete_sqls are those statements, and the step is logged as pruned_kind LANDED
      with the rows of the three tables.
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
        {{ return({'steps': [], 'delete_sql': none, 'landing_delete_sqls': []}) }}
    {%- endif -%}
    {%- set memo = graph.setdefault('lakerep_prune_plan', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- do memo.update({'invocation_id': invocation_id, 'plan': _lakerep_prune_plan()}) -%}
    {%- endif -%}
    {{ return(memo.plan) }}
{% endmacro %}


{% macro _lakerep_prune_plan() %}
    {%- set nothing = {'steps': [], 'delete_sql': none, 'landing_delete_sqls': []} -%}
    {%- set register = lakerep_control_relation('register') -%}
    {%- set pruning_control = lakerep_control_relation('pruning_control', schema='apply') -%}
    {%- if register is none or pruning_control is none -%}
        {{ return(nothing) }}
    {%- endif -%}
    {%- set lowest = lakerep_lowest_position() | trim -%}
    {%- set captured = ref('captured_log') -%}
    {#- One read of the register: the global record, and each source's CD_OLD_SYNCHPOINT. -#}
    {%- set held = {'global': none} -%}
    {%- for row in run_query(
        'select GLOBAL_RECORD, SOURCE_OWNER, SOURCE_TABLE, SYNCHPOINT, SYNCHTIME, CD_OLD_SYNCHPOINT from ' ~ register
    ).rows -%}
        {%- do held.update({'global' if row.GLOBAL_RECORD == 'Y' else row.SOURCE_OWNER ~ '.' ~ row.SOURCE_TABLE: row}) -%}
    {%- endfor -%}
    {%- set global = held.global -%}
    {%- if global is none or global.SYNCHPOINT is none -%}
        {{ return(nothing) }}
    {%- endif -%}
    {%- set synchpoint = global.SYNCHPOINT -%}
    {%- set cutoff = lakerep_retention_cutoff(global.SYNCHTIME) -%}
    {%- set older_than_retention = "IBMSNAP_LOGMARKER < timestamp'" ~ cutoff ~ "'" -%}
    {%- set retained_after = run_query(
        'select coalesce(max(IBMSNAP_INTENTSEQ), ' ~ lakerep_string_literal(lowest) ~ ') as position from ' ~ captured
        ~ " where IBMSNAP_OPERATION = 'C' and " ~ older_than_retention
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
    {%- set source_limits = [] -%}
    {%- for registration in lakerep_registrations() -%}
        {%- set name = registration.source_owner ~ '.' ~ registration.source_table -%}
        {%- set limit = [limits.get(name, synchpoint), synchpoint] | min -%}
        {%- set source = held.get(name) -%}
        {%- do source_limits.append(
            'when ' ~ lakerep_string_literal(name) ~ ' then ' ~ lakerep_string_literal(limit)
        ) -%}
        {%- do steps.append({
            'pruned_kind': 'CD', 'source_owner': registration.source_owner,
            'source_table': registration.source_table, 'prune_limit': limit, 'retention_cutoff': cutoff,
            'cd_old_synchpoint': [limit, retained_after, (source.CD_OLD_SYNCHPOINT if source else none) or lowest] | max,
        }) -%}
    {%- endfor -%}
    {%- set uow_limit = ([synchpoint] + (limits.values() | list)) | min -%}
    {%- do steps.append({
        'pruned_kind': 'UOW', 'source_owner': none, 'source_table': none, 'prune_limit': uow_limit,
        'retention_cutoff': cutoff, 'cd_old_synchpoint': none,
    }) -%}
    {%- set gone -%}
        select
            cd.source_owner,
            cd.source_table,
            cd.IBMSNAP_INTENTSEQ,
            cd.IBMSNAP_OPERATION
        from {{ captured }} as cd
        left join (
            select IBMSNAP_UOWID, IBMSNAP_INTENTSEQ as IBMSNAP_COMMITSEQ, IBMSNAP_LOGMARKER
            from {{ captured }}
            where IBMSNAP_OPERATION = 'C'
        ) as uow on cd.IBMSNAP_UOWID = uow.IBMSNAP_UOWID
        left join (select distinct IBMSNAP_UOWID from {{ ref('uow_rollbacks') }}) as rolled_back
            on cd.IBMSNAP_UOWID = rolled_back.IBMSNAP_UOWID
        where
            cd.IBMSNAP_OPERATION != 'C'
            and (
                rolled_back.IBMSNAP_UOWID is not null
                or uow.IBMSNAP_LOGMARKER < timestamp'{{ cutoff }}'
                or uow.IBMSNAP_COMMITSEQ <= case concat(cd.source_owner, '.', cd.source_table)
                    {{ source_limits | join(' ') }} else '{{ lowest }}' end
            )
        union all
        select source_owner, source_table, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION
        from {{ captured }}
        where
            IBMSNAP_OPERATION = 'C'
            and (IBMSNAP_INTENTSEQ <= {{ lakerep_string_literal(uow_limit) }} or {{ older_than_retention }})
    {%- endset -%}
    {#- One statement counts what every step deletes. -#}
    {%- set counts = {} -%}
    {%- for row in run_query(
        "select coalesce(concat(source_owner, '.', source_table), 'UOW') as step, count(*) as rows_deleted from ("
        ~ gone ~ ") as gone group by coalesce(concat(source_owner, '.', source_table), 'UOW')"
    ).rows -%}
        {%- do counts.update({row.step: row.rows_deleted}) -%}
    {%- endfor -%}
    {%- for step in steps -%}
        {%- do step.update({'rows_deleted': counts.get(
            'UOW' if step.pruned_kind == 'UOW' else step.source_owner ~ '.' ~ step.source_table, 0
        )}) -%}
    {%- endfor -%}
    {%- set landed = _lakerep_landed_log_prune(uow_limit, cutoff) -%}
    {{ return({'steps': steps + [landed.step], 'landing_delete_sqls': landed.delete_sqls, 'delete_sql':
        'merge into ' ~ captured ~ ' as captured using (' ~ gone ~ ') as gone'
        ~ ' on captured.IBMSNAP_INTENTSEQ = gone.IBMSNAP_INTENTSEQ'
        ~ ' and captured.IBMSNAP_OPERATION = gone.IBMSNAP_OPERATION when matched then delete'}) }}
{% endmacro %}


{#- The prune of the landed log records, their judged copies and the Debezium events (see
    lakerep_prune_plan): its logged step, with the rows it deletes counted, and the statements
    that delete them (none for a table none of whose rows goes). -#}
{% macro _lakerep_landed_log_prune(uow_limit, cutoff) %}
    {%- set landed_log = source('lakerep_raw', 'source_log') -%}
    {%- set judged = ref('int_log_records_judged') -%}
    {%- set events = lakerep_debezium_events_relation() -%}
    {%- set batches = run_query(
        'select (select max(landing_batch) from ' ~ landed_log ~ ') as highest, '
        ~ ('(select max(landing_batch) from ' ~ events ~ ')' if events is not none else 'cast(null as bigint)')
        ~ ' as highest_event,'
        ~ ' (select max(up_to_batch) from ' ~ ref('capture_cycles') ~ " where record_kind = 'cycle') as captured,"
        ~ ' judged.*'
        ~ ' from (select max(landing_batch) as highest_judged, max(capture_cycle) as last_judging,'
        ~ ' min(normalized_position) filter (where quarantine_reason is null) as oldest_judged'
        ~ ' from ' ~ judged ~ ') as judged'
    ).rows[0] -%}
    {%- set step = {
        'pruned_kind': 'LANDED', 'source_owner': none, 'source_table': none, 'prune_limit': uow_limit,
        'retention_cutoff': cutoff, 'cd_old_synchpoint': none, 'rows_deleted': 0,
    } -%}
    {%- set statements = [] -%}
    {%- set ended = lakerep_uows_ended_through(lakerep_string_literal(uow_limit)) -%}
    {%- if batches.highest is not none and batches.captured is not none -%}
        {%- do _lakerep_delete_matched(step, statements, landed_log, 'landed', ended, 'ended',
            'landed.uow_id = ended.uow_id and landed.landing_batch <= ' ~ batches.captured
            ~ ' and landed.landing_batch < ' ~ batches.highest) -%}
    {%- endif -%}
    {%- if batches.oldest_judged is not none -%}
        {%- do _lakerep_delete_matched(step, statements, judged, 'judged', ended, 'ended',
            'judged.uow_id = ended.uow_id and judged.quarantine_reason is null'
            ~ " and judged.record_type in ('I', 'U', 'D')"
            ~ ' and judged.landing_batch < ' ~ batches.highest_judged
            ~ ' and judged.capture_cycle < ' ~ batches.last_judging
            ~ ' and judged.normalized_position != ' ~ lakerep_string_literal(batches.oldest_judged)) -%}
    {%- endif -%}
    {%- if events is not none and batches.highest_event is not none and batches.captured is not none -%}
        {%- set gone_events -%}
            select events.landing_batch, events.landed_file, events.landed_line
            from (
                select
                    landing_batch,
                    landed_file,
                    landed_line,
                    coalesce(event.source.txId, split_part(event.id, ':', 1)) as tx_id,
                    coalesce(
                        {{ lakerep_lsn_position('try_cast(event.source.lsn as bigint)') }},
                        {{ lakerep_lsn_position("try_cast(split_part(event.id, ':', 2) as bigint) - 1") }}
                    ) as event_position,
                    coalesce(event.op = 'r', false) as is_snapshot_read
                from ({{ lakerep_debezium_events(events) }}) as parsed
            ) as events
            left semi join (
                select auth_token, normalized_position
                from {{ ref('int_log_records_judged') }}
                where
                    record_type = 'C' and quarantine_reason is null
                    and normalized_position <= {{ lakerep_string_literal(uow_limit) }}
            ) as ended
                on events.tx_id = ended.auth_token and events.event_position <= ended.normalized_position
            where not events.is_snapshot_read
        {%- endset -%}
        {%- do _lakerep_delete_matched(step, statements, events, 'landed', gone_events, 'gone',
            'landed.landing_batch = gone.landing_batch and landed.landed_file = gone.landed_file'
            ~ ' and landed.landed_line = gone.landed_line and landed.landing_batch <= ' ~ batches.captured
            ~ ' and landed.landing_batch < ' ~ batches.highest_event) -%}
    {%- endif -%}
    {{ return({'step': step, 'delete_sqls': statements}) }}
{% endmacro %}


{#- Counts the rows of `table` (as `alias`) that a row of the query `gone` (as `gone_alias`)
    matches on `condition`, adds them to the step's rows_deleted, and appends to `statements` the
    MERGE that deletes them (none when no row goes: Delta would commit anyway). -#}
{% macro _lakerep_delete_matched(step, statements, table, alias, gone, gone_alias, condition) %}
    {%- set count = run_query(
        'select count(*) as rows_deleted from ' ~ table ~ ' as ' ~ alias ~ ' left semi join (' ~ gone
        ~ ') as ' ~ gone_alias ~ ' on ' ~ condition
    ).rows[0].rows_deleted -%}
    {%- do step.update({'rows_deleted': step.rows_deleted + count}) -%}
    {%- do statements.append(
        'merge into ' ~ table ~ ' as ' ~ alias ~ ' using (' ~ gone ~ ') as ' ~ gone_alias ~ ' on ' ~ condition
        ~ ' when matched then delete'
    ) if count > 0 else none -%}
{% endmacro %}
