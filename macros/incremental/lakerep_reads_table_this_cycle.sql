{#-
    Whether a control model that reads every registered table (capture_cycles, register) reads
    this one in this cycle: a table outside lakerep_tables_in_cycle has nothing in the cycle, so
    the model writes its part as literals, without touching its tables (issue 21: each Delta
    table a statement touches costs a catalog lookup and a snapshot). With in_flight, it also
    reads a table that a UOW still in flight may have changed (capture_cycles: that UOW's first
    change is the table's RESTART1). Always at parse time, so the model's refs are all known.
-#}
{% macro lakerep_reads_table_this_cycle(source_owner, source_table, in_flight=false) %}
    {{ return(not execute or lakerep_table_changes_this_cycle(source_owner ~ '.' ~ source_table, in_flight)) }}
{% endmacro %}
