{#-
    Compacts the small files of the lake's Delta tables that grow by a write per cycle, in a cycle
    that prunes (SPEC §6: every PRUNE_INTERVAL, or `lakerep prune`), after its deletes. A table
    is every incremental model (appended or merged into: staging, control, CD, UOW, CCD, targets)
    and every landing table. A table model replaces its files each time and is left out (an
    incremental insert overwrite does too, and never reaches the threshold). One that holds var
    compact_min_files files or more (2 or more; `describe detail`, which Delta answers from its
    snapshot) is rewritten by `optimize`, in a commit of its own that changes no row; the others
    get no statement beyond the describe. Nothing in a cycle that does not prune (capture_prune's
    first build runs its materialization in any cycle).
    Why here and not Delta's auto compaction (ADR 0006): every cycle adds a file or two to each
    table it writes, and a read costs about 1.3 ms per file, so a session's reads grow with its
    age. Auto compaction compacts each table on its first write in every JVM, whatever it holds
    (a `lakerep run --once` pipeline on every run), and a table replaced each cycle on each
    write; it cost the first cycle of every lake about 15 s. A prune cycle already rewrites the
    CD and UOW tables, and comes every few minutes, so the files between two of them stay few.
-#}
{% macro lakerep_compact_small_files() %}
    {%- if not lakerep_cycle_prunes() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set threshold = lakerep_whole_number_var('compact_min_files', 'files', 2) -%}
    {%- for relation in _lakerep_growing_tables() -%}
        {%- set detail = run_query('describe detail ' ~ relation) -%}
        {%- if detail.rows and detail.rows[0]['numFiles'] >= threshold -%}
            {%- call statement('lakerep_compact_' ~ relation.identifier) -%}
                optimize {{ relation }}
            {%- endcall -%}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}


{#- The built Delta tables that grow by a write per cycle (the incremental models and the landing tables). -#}
{% macro _lakerep_growing_tables() %}
    {%- set relations = [] -%}
    {%- for node in graph.nodes.values()
        if node.resource_type == 'model' and node.config.materialized in ['incremental', 'prune'] -%}
        {%- do relations.append(api.Relation.create(
            database=node.database, schema=node.schema, identifier=node.alias, type='table'
        )) -%}
    {%- endfor -%}
    {%- for node in graph.sources.values() if node.source_name == 'lakerep_raw' -%}
        {%- do relations.append(api.Relation.create(
            database=node.database, schema=node.schema, identifier=node.identifier, type='table'
        )) -%}
    {%- endfor -%}
    {%- set built = [] -%}
    {%- for relation in relations | sort(attribute='schema,identifier') -%}
        {%- set cached = load_cached_relation(relation) -%}
        {%- if cached is not none and cached.is_table -%}
            {%- do built.append(cached) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(built) }}
{% endmacro %}
