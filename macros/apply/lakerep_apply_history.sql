{#-
    What earlier cycles left that the Apply plan reads: committed, apply_cycles (a cycle's commit
    record), and changes, apply_changes (the last cycle's plan and changes, committed or cut
    off), read by name (the plan is read before the cycle writes them), none for a table not
    built yet; and facts, the numbers and register rows the plan would otherwise ask in scalar
    subqueries at every reference, as literals (two small queries, as the plan compiles, after
    Capture's commit): capture_cycle, committed_cycle and changes_cycle (each table's highest,
    a bare max Delta answers from statistics; none for none) and register (the register's rows:
    global_record, source_owner, source_table, synchpoint, synchtime as text, cd_old_synchpoint,
    cd_new_synchpoint). One macro, so that a unit test of the plan can give them all; without
    facts the plan reads the same from the tables.
-#}
{% macro lakerep_apply_history() %}
    {%- set history = {
        'committed': lakerep_control_relation('apply_cycles', schema='apply'),
        'changes': lakerep_control_relation('apply_changes', schema='apply'),
        'facts': none,
    } -%}
    {%- if execute -%}
        {%- set numbers = lakerep_highest_numbers([
            (ref('capture_cycles'), [('capture_cycle', 'cycle_number')]),
            (history.committed, [('committed_cycle', 'apply_cycle')]),
            (history.changes, [('changes_cycle', 'apply_cycle')]),
        ]) -%}
        {%- set register = run_query(
            'select GLOBAL_RECORD as global_record, SOURCE_OWNER as source_owner, SOURCE_TABLE as source_table, '
            ~ 'SYNCHPOINT as synchpoint, cast(SYNCHTIME as string) as synchtime, '
            ~ 'CD_OLD_SYNCHPOINT as cd_old_synchpoint, CD_NEW_SYNCHPOINT as cd_new_synchpoint from ' ~ ref('register')
        ).rows -%}
        {%- do history.update({'facts': {
            'capture_cycle': numbers.capture_cycle,
            'committed_cycle': numbers.committed_cycle,
            'changes_cycle': numbers.changes_cycle,
            'register': register,
        }}) -%}
    {%- endif -%}
    {{ return(history) }}
{% endmacro %}
