{#-
    Refuses, with one line, to write a table whose columns are not the model's contract (names
    and types, in order): a lake built by another version of the project, a model whose contract
    changed, or a table another tool replaced with other columns. Nothing is written.

    A table of a registered table's columns (lakerep_model_registration) follows its source
    table's schema history instead (ADR 0012): when the contract has the table's columns, some
    wider, and others after them, each column is widened by Delta's type widening and the others
    are added; in a target of current rows those added with a default take it in every row held
    (rows from before the column, which PostgreSQL gives that default): one UPDATE, a rewrite of
    the table. A CCD keeps its changes as they were. A table a refresh is about to replace
    (replaceable) whose columns cannot evolve so (after a rename, a key change: the table declared
    again) answers false: the caller creates it again with its contract's columns.
    Asked once per table and contract in a process (the memo lives in the graph, which a running
    session's invocations share), so a session's later cycles send no statement for it.
    Arguments: relation — the table; replaceable — a refresh replaces its rows.
-#}
{% macro lakerep_table_matches_contract(relation, replaceable=false) %}
    {%- set expected = lakerep_contract_md5() -%}
    {%- set memo = graph.setdefault('lakerep_contracts_checked', {}) -%}
    {%- set key = relation ~ ':' ~ expected -%}
    {%- if key in memo -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set held = [] -%}
    {%- for column in adapter.get_columns_in_relation(relation) -%}
        {%- do held.append(column.name | lower ~ ' ' ~ _lakerep_type_name(column.data_type)) -%}
    {%- endfor -%}
    {%- set declared = [] -%}
    {%- for name, data_type in lakerep_contract_columns() -%}
        {%- do declared.append(name | lower ~ ' ' ~ _lakerep_type_name(data_type)) -%}
    {%- endfor -%}
    {%- set registered = lakerep_model_registration(model.name) is not none -%}
    {%- if registered -%}
        {%- do _lakerep_fill_defaults(relation) -%}
    {%- endif -%}
    {%- if held != declared and registered and _lakerep_evolves_to(held, declared) -%}
        {%- do _lakerep_evolve_table(relation, held, declared) -%}
    {%- elif held != declared and registered and replaceable -%}
        {{ log(relation ~ ': its columns changed with its source table; the refresh creates it again', info=true) }}
        {{ return(false) }}
    {%- elif held != declared -%}
        {{ exceptions.raise_compiler_error(
            relation ~ ' has other columns than its model declares (a lake of another lakerep version, a '
            ~ 'changed contract, or a table replaced by another tool): nothing was written. Rebuild the lake '
            ~ '(lakerep generate --fresh, or drop its schemas), or run dbt with --full-refresh --select '
            ~ model.name ~ '. The table has: ' ~ held | join(', ') ~ '; the model declares: ' ~ declared | join(', ')
        ) }}
    {%- endif -%}
    {%- do memo.update({key: true}) -%}
    {{ return(true) }}
{% endmacro %}


{#- A type's name as Spark's describe writes it: lower case, no spaces, integer as int. -#}
{% macro _lakerep_type_name(data_type) %}
    {%- set name = (data_type or '') | lower | replace(' ', '') -%}
    {{ return('int' if name == 'integer' else name) }}
{% endmacro %}


{#- Whether a table with the columns `held` becomes `declared` (each 'name type') by widening
    the columns the schema history widened (lakerep.sources.schema_history.widens decided which
    changes are widenings) and adding the others, in whatever order the contract has them (every
    write names its columns). -#}
{% macro _lakerep_evolves_to(held, declared) %}
    {%- set types = {} -%}
    {%- for column in declared -%}
        {%- do types.update({column.split(' ')[0]: column.split(' ')[1]}) -%}
    {%- endfor -%}
    {%- set widened = [] -%}
    {%- for column in lakerep_model_registration(model.name).columns if column.widened -%}
        {%- do widened.append(column.name | lower) -%}
    {%- endfor -%}
    {%- for column in held -%}
        {%- set name, data_type = column.split(' ') -%}
        {%- if name not in types or (types[name] != data_type and name not in widened) -%}
            {{ return(false) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(true) }}
{% endmacro %}


{#- Widens and adds columns of the table (see above), then fills the added columns' defaults.
    The columns to fill are named in a table property first and it goes only once they are
    filled, so a crash in between fills them in the next run, before anything else is written. -#}
{% macro _lakerep_evolve_table(relation, held, declared) %}
    {%- set widened = [] -%}
    {%- set added = [] -%}
    {%- set names = [] -%}
    {%- for column in held -%}
        {%- do names.append(column.split(' ')[0]) -%}
    {%- endfor -%}
    {%- for column in declared if column not in held -%}
        {%- do (widened if column.split(' ')[0] in names else added).append(column.split(' ')) -%}
    {%- endfor -%}
    {%- set added_names = added | map(attribute=0) | list -%}
    {%- set defaults = [] -%}
    {%- for column in lakerep_columns_taking_defaults(model.name) if column.name | lower in added_names -%}
        {%- do defaults.append(column.name) -%}
    {%- endfor -%}
    {%- if defaults -%}
        {%- call statement('lakerep_pending_defaults') -%}
            alter table {{ relation }} set tblproperties ('lakerep_pending_defaults' = '{{ defaults | join(' ') }}')
        {%- endcall -%}
    {%- endif -%}
    {%- if widened -%}
        {%- call statement('lakerep_type_widening') -%}
            alter table {{ relation }} set tblproperties ('delta.enableTypeWidening' = 'true')
        {%- endcall -%}
        {%- for name, data_type in widened -%}
            {%- call statement('lakerep_widen_column') -%}
                alter table {{ relation }} alter column `{{ name }}` type {{ data_type }}
            {%- endcall -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if added -%}
        {%- call statement('lakerep_add_columns') -%}
            alter table {{ relation }} add columns (
                {%- for name, data_type in added %}`{{ name }}` {{ data_type }}{{ ', ' if not loop.last }}{% endfor -%}
            )
        {%- endcall -%}
    {%- endif -%}
    {%- do _lakerep_fill_defaults(relation, defaults) -%}
    {{ log(relation ~ ': evolved with its source table: ' ~ (widened + added) | map('join', ' ') | join(', '), info=true) }}
{% endmacro %}


{#- Gives the added columns named (all of them when the table property names them: a run
    stopped before it filled them) their default in every row, then drops the property. The
    property is asked of the table itself: what `show table extended` lists (the relation's
    information) holds no property of a Delta table; a table none of whose columns takes a default
    is not asked. -#}
{% macro _lakerep_fill_defaults(relation, names=none) %}
    {%- if names is none -%}
        {%- if not lakerep_columns_taking_defaults(model.name) -%}
            {{ return(none) }}
        {%- endif -%}
        {%- set found = run_query("show tblproperties " ~ relation ~ " ('lakerep_pending_defaults')").rows -%}
        {%- set names = (found[0][1] if found and 'does not have' not in found[0][1] else '').split() -%}
    {%- endif -%}
    {%- if not names -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set assignments = [] -%}
    {%- for column in lakerep_model_registration(model.name).columns if column.name in names -%}
        {%- do assignments.append('`' ~ column.name ~ '` = cast(' ~ lakerep_string_literal(column.default) ~ ' as ' ~ column.data_type ~ ')') -%}
    {%- endfor -%}
    {%- call statement('lakerep_added_defaults') -%}
        update {{ relation }} set {{ assignments | join(', ') }}
    {%- endcall -%}
    {%- call statement('lakerep_pending_defaults_filled') -%}
        alter table {{ relation }} unset tblproperties ('lakerep_pending_defaults')
    {%- endcall -%}
{% endmacro %}
