{#-
    Records one refresh marker for a subscription member in lakerep_raw.refresh_markers (SPEC §5),
    for apply_plan to act on; `lakerep refresh` and `lakerep mark-external-refresh` run it (dbt
    run-operation) once they have made sure no session is running. Kinds:
      refresh       a full refresh from a source snapshot (no positions);
      external      a refresh window done by another tool, from start_position to end_position;
      unload_start  the current end of the log, recorded as the pending start of an external unload;
      unload_end    the current end of the log ends the member's pending unload_start (its latest
                    one newer than its latest external marker): recorded as an external marker.
    Rejected with a compile error naming the member and the values, and nothing written: a target
    that is no member, a position that is not 20 hex digits, start after end, an end past the end
    of the log (its highest position), a start before the position where the member will start
    reading (the greater of its SYNCHPOINT in pruning_control and its source's CD_OLD_SYNCHPOINT).
-#}
{% macro lakerep_mark_refresh(kind, target_table, start_position=none, end_position=none, marked_by='') %}
    {%- set kinds = ['refresh', 'external', 'unload_start', 'unload_end'] -%}
    {%- if kind not in kinds -%}
        {{ exceptions.raise_compiler_error(
            'refresh marker kind must be one of ' ~ kinds | join(', ') ~ ', not ' ~ kind
        ) }}
    {%- endif -%}
    {%- set member = lakerep_member(target_table) -%}
    {%- set who = kind ~ ' marker for member ' ~ member.apply_qual ~ '.' ~ member.set_name ~ '.' ~ target_table -%}
    {%- set given = {'start': start_position, 'end': end_position} -%}
    {%- for name, position in given.items() -%}
        {%- if kind == 'external' and position is none -%}
            {{ exceptions.raise_compiler_error(who ~ ' rejected: it needs a start and an end position (no ' ~ name ~ ')') }}
        {%- elif kind != 'external' and position is not none -%}
            {{ exceptions.raise_compiler_error(
                who ~ ' rejected: it takes no ' ~ name ~ ' position (given ' ~ position ~ ')'
            ) }}
        {%- elif position is not none and not modules.re.fullmatch('[0-9A-Fa-f]{20}', position | string) -%}
            {{ exceptions.raise_compiler_error(
                who ~ ' rejected: ' ~ name ~ ' position ' ~ position ~ ' is not 20 hex digits'
            ) }}
        {%- endif -%}
    {%- endfor -%}

    {%- do lakerep_create_landing_tables() -%}
    {%- set markers = source('lakerep_raw', 'refresh_markers') -%}
    {%- set start = start_position | upper if start_position is not none else none -%}
    {%- set end = end_position | upper if end_position is not none else none -%}
    {%- if kind != 'refresh' -%}
        {%- set log_end = run_query(
            'select max(position) as log_end from (' ~ lakerep_landed_positions(
                source('lakerep_raw', 'source_log'), load_relation(ref('int_log_records_judged'))
            ) ~ ')'
        ).rows[0].log_end -%}
        {%- if log_end is none and kind in ['unload_start', 'unload_end'] -%}
            {{ exceptions.raise_compiler_error(who ~ ' rejected: the source log is empty, it has no end yet') }}
        {%- endif -%}
        {%- if kind == 'unload_start' -%}
            {%- set start = log_end -%}
        {%- elif kind == 'unload_end' -%}
            {%- set pending = run_query(
                'select refresh_start from ' ~ markers ~ ' where target_table = ' ~ lakerep_string_literal(target_table)
                ~ " and kind = 'unload_start' and marked_at > (select coalesce(max(marked_at), timestamp'1900-01-01') from "
                ~ markers ~ ' where target_table = ' ~ lakerep_string_literal(target_table) ~ " and kind = 'external')"
                ~ ' order by marked_at desc limit 1'
            ).rows -%}
            {%- if pending | length == 0 -%}
                {{ exceptions.raise_compiler_error(
                    who ~ ' rejected: no unload start is pending (none marked since its latest external refresh);'
                    ~ ' mark the start of the unload first'
                ) }}
            {%- endif -%}
            {%- set start = pending[0].refresh_start -%}
            {%- set end = log_end -%}
        {%- endif -%}
        {%- if end is not none and start > end -%}
            {{ exceptions.raise_compiler_error(who ~ ' rejected: start ' ~ start ~ ' is after end ' ~ end) }}
        {%- endif -%}
        {%- if end is not none and (log_end is none or end > log_end) -%}
            {{ exceptions.raise_compiler_error(
                who ~ ' rejected: end ' ~ end ~ ' is past the current end of the log (' ~ (log_end or 'empty') ~ ')'
            ) }}
        {%- endif -%}
        {%- set read_from = _lakerep_member_read_start(member) -%}
        {%- if start < read_from.position -%}
            {{ exceptions.raise_compiler_error(
                who ~ ' rejected: start ' ~ start ~ ' is before ' ~ read_from.position
                ~ ', where the subscription will start reading (' ~ read_from.because ~ ')'
            ) }}
        {%- endif -%}
    {%- endif -%}

    {%- set marker_id = run_query('select uuid() as marker_id').rows[0].marker_id -%}
    {%- set recorded_kind = 'external' if kind == 'unload_end' else kind -%}
    {%- set values = [] -%}
    {%- for value in [marker_id, recorded_kind, member.apply_qual, member.set_name, target_table, start, end] -%}
        {%- do values.append(lakerep_string_literal(value) | trim) -%}
    {%- endfor -%}
    {%- do run_query(
        'insert into ' ~ markers ~ ' (marker_id, kind, apply_qual, set_name, target_table, refresh_start,'
        ~ ' refresh_end, marked_at, marked_by) values (' ~ values | join(', ')
        ~ ', current_timestamp(), ' ~ lakerep_string_literal(marked_by or '') ~ ')'
    ) -%}
    {%- set member_name = member.apply_qual ~ '.' ~ member.set_name ~ '.' ~ target_table -%}
    {%- if kind == 'refresh' -%}
        {%- set what = 'full refresh of member ' ~ member_name ~ ' requested: the next Apply cycle of its set reloads it from a source snapshot' -%}
    {%- elif kind == 'unload_start' -%}
        {%- set what = 'unload start ' ~ start ~ ' of member ' ~ member_name ~ ' recorded: mark the unload end when the unload is done' -%}
    {%- else -%}
        {%- set what = 'external refresh of member ' ~ member_name ~ ' recorded, from ' ~ start ~ ' to ' ~ end -%}
    {%- endif -%}
    {{ log(what ~ ' (marker ' ~ marker_id ~ ')', info=True) }}
{% endmacro %}


{#-
    Where a member will start reading changes: {position, because}. The greater of its SYNCHPOINT
    in pruning_control (the lowest position while that table does not exist yet) and its source's
    CD_OLD_SYNCHPOINT in the register (changes at or before it are gone), if the register exists.
-#}
{% macro _lakerep_member_read_start(member) %}
    {%- set lowest = lakerep_lowest_position() | trim -%}
    {%- set synchpoint = lowest -%}
    {%- set cd_old = lowest -%}
    {%- if load_relation(ref('pruning_control')) is not none -%}
        {%- set rows = run_query(
            'select SYNCHPOINT from ' ~ ref('pruning_control') ~ ' where TARGET_TABLE = '
            ~ lakerep_string_literal(member.target_table)
        ).rows -%}
        {%- set synchpoint = rows[0].SYNCHPOINT if rows | length == 1 and rows[0].SYNCHPOINT else lowest -%}
    {%- endif -%}
    {%- if load_relation(ref('register')) is not none -%}
        {%- set rows = run_query(
            'select CD_OLD_SYNCHPOINT from ' ~ ref('register') ~ ' where SOURCE_OWNER = '
            ~ lakerep_string_literal(member.source_owner) ~ ' and SOURCE_TABLE = '
            ~ lakerep_string_literal(member.source_table) ~ " and GLOBAL_RECORD = 'N'"
        ).rows -%}
        {%- set cd_old = rows[0].CD_OLD_SYNCHPOINT if rows | length == 1 and rows[0].CD_OLD_SYNCHPOINT else lowest -%}
    {%- endif -%}
    {{ return({
        'position': [synchpoint, cd_old] | max,
        'because': 'the greater of its SYNCHPOINT ' ~ synchpoint ~ ' and CD_OLD_SYNCHPOINT ' ~ cd_old
            ~ ' of ' ~ member.source_owner ~ '.' ~ member.source_table,
    }) }}
{% endmacro %}
