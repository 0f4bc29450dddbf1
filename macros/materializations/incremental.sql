{#-
    The project's incremental materialization (dbt-spark's name, so dbt knows it and its
    contracts): one statement per write, and none when the model has nothing to write (ADR 0011).
    dbt-spark's sends four to six per model (a temporary view, two describes, the schema check,
    the write): each statement costs a round trip and a plan, whatever its rows.

    The model decides, while it compiles, how this cycle writes it, with lakerep_write_as (one
    place per model, beside its SQL): skip, append (Delta's transaction identifiers make a
    repeated append of the same cycle a no-op), overwrite, or merge. The table's columns are the
    model's contract: its first build creates the table with them (and the properties the model
    asks for), and every write names them, so no describe is needed. A contract that no longer
    matches the table is refused with one line (lakerep_table_matches_contract); a full refresh
    rebuilds the table, unless the model refuses one (config full_refresh=false).
-#}
{% materialization incremental, adapter='spark', supported_languages=['sql'] -%}
    {{ return(lakerep_incremental_materialization(sql)) }}
{%- endmaterialization %}
