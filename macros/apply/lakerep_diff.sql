{#-
    The comparison of a target with its source (SPEC §7): `lakerep diff` runs lakerep_diff, the
    data test lakerep_matches_source_snapshot runs the same rows.

    A target is compared with a consistent snapshot of its source at the target's synchpoint: an
    unload landed in lakerep_raw.source_snapshot whose start and end are one position, that one
    or an earlier one after which the table had no change up to the synchpoint
    (_lakerep_consistent_snapshot). A CCD target is compared by the state its history gives: per key its
    latest change, unless that is a delete. That needs key updates captured as delete/insert
    pairs: otherwise an update moving a row to a new key leaves the old key's last change in
    the history, and such a target cannot be compared (_lakerep_target_comparable).
-#}


{#-
    `lakerep diff` (dbt run-operation): compares each target in `target_tables` (all members when
    empty) with the consistent snapshot of its source at `at` (default: the target's synchpoint).
    Logs per target a line of counts and up to `limit` differing keys, then one line
    'lakerep_diff_result <json>' with the counts per target. Rejected (a compile error, nothing
    compared) for a position that is not 20 hex digits, a target that is no member, or one with
    nothing to compare (lakerep_diff_subject), except that comparing every member skips one that
    cannot be compared, with a line.
-#}
{% macro lakerep_diff(target_tables=[], at=none, limit=10) %}
    {%- if at is not none and not modules.re.fullmatch('[0-9A-Fa-f]{20}', at | string) -%}
        {{ exceptions.raise_compiler_error('diff rejected: position ' ~ at ~ ' is not 20 hex digits') }}
    {%- endif -%}
    {%- set plans = [] -%}
    {%- for target_table in target_tables or (lakerep_members() | map(attribute='target_table') | list) -%}
        {%- set subject = lakerep_diff_subject(target_table, at) -%}
        {%- if subject.why_not is none -%}
            {%- do plans.append(subject) -%}
        {%- elif not subject.comparable and not target_tables -%}
            {{ log(target_table ~ ': not compared: ' ~ subject.why_not, info=True) }}
        {%- else -%}
            {{ exceptions.raise_compiler_error('diff of ' ~ target_table ~ ' rejected: ' ~ subject.why_not) }}
        {%- endif -%}
    {%- endfor -%}

    {%- set results = {} -%}
    {%- for plan in plans -%}
        {%- set rows = run_query(
            lakerep_target_diff_rows(plan.target_table, plan.snapshot_id)
            ~ ' order by difference, row_key'
        ).rows -%}
        {%- set counts = {'only in source': 0, 'only in target': 0, 'differs': 0, 'duplicated in target': 0} -%}
        {%- for row in rows -%}
            {%- do counts.update({row.difference: counts[row.difference] + 1}) -%}
        {%- endfor -%}
        {{ log(
            plan.target_table ~ ' at ' ~ plan.position ~ ' against snapshot ' ~ plan.snapshot_id ~ ': '
            ~ counts['only in source'] ~ ' only in the source, ' ~ counts['only in target']
            ~ ' only in the target, ' ~ counts['differs'] ~ ' differing, '
            ~ counts['duplicated in target'] ~ ' keys held more than once',
            info=True
        ) }}
        {%- for row in rows[:limit] -%}
            {{ log(
                '  ' ~ row.difference ~ ' ' ~ row.row_key
                ~ (': ' ~ row.differing_columns ~ ' (source ' ~ row.source_row ~ ', target ' ~ row.target_row ~ ')'
                    if row.difference == 'differs'
                    else (' ' ~ row.differing_columns ~ ' times' if row.difference == 'duplicated in target'
                        else ': ' ~ (row.source_row or row.target_row))),
                info=True
            ) }}
        {%- endfor -%}
        {%- do results.update({plan.target_table: {
            'position': plan.position, 'snapshot_id': plan.snapshot_id,
            'only_in_source': counts['only in source'], 'only_in_target': counts['only in target'],
            'differing': counts['differs'], 'duplicated': counts['duplicated in target'],
        }}) -%}
    {%- endfor -%}
    {{ log('lakerep_diff_result ' ~ tojson(results), info=True) }}
{% endmacro %}
