{#-
    Generic data test: a model's column contracts, every rule in one statement that reads the
    table once (one aggregate over grouping sets: the whole table for the counted rules, each
    unique combination for its duplicates). A dbt test node costs a statement and its planning:
    one per model, where one per column and rule sent three times the statements. One row per
    rule broken: the rule, the column(s), an offending value (null for not_null; a duplicated
    key as JSON, nulls included) and how many rows break it.
    Arguments:
      not_null — columns that never hold null;
      accepted_values — a column: the values it may hold, compared with the column cast to a
                        string (so 0 and 1 for an integer column); a null passes, as with dbt's
                        accepted_values;
      unique — column combinations no two rows share (a list of lists; a single unique column
               is a combination of one); a row per duplicated value. Unlike dbt's unique, rows
               whose key columns are null share a value too.
-#}
{% test lakerep_column_contracts(model, not_null=[], accepted_values={}, unique=[]) %}
    {%- set counted = [] -%}
    {%- for column in not_null -%}
        {%- do counted.append({"rule": "not_null", "column": column,
            "broken": column ~ " is null", "value": "cast(null as string)"}) -%}
    {%- endfor -%}
    {%- for column, values in accepted_values.items() -%}
        {%- set listed = [] -%}
        {%- for value in values -%}
            {%- if value is none -%}
                {{ exceptions.raise_compiler_error("lakerep_column_contracts on " ~ model ~ ": accepted_values of "
                    ~ column ~ " lists a null (a null always passes)") }}
            {%- endif -%}
            {%- do listed.append(lakerep_string_literal(value | string)) -%}
        {%- endfor -%}
        {%- set broken = "cast(" ~ column ~ " as string) not in (" ~ listed | join(", ") ~ ")" -%}
        {%- do counted.append({"rule": "accepted_values", "column": column, "broken": broken,
            "value": "min(case when " ~ broken ~ " then cast(" ~ column ~ " as string) end)"}) -%}
    {%- endfor -%}
    {%- if not counted and not unique -%}
        {{ exceptions.raise_compiler_error("lakerep_column_contracts on " ~ model ~ " names no rule") }}
    {%- endif -%}
    {#- The grouping sets: the whole table (for the counted rules), then each combination. The
        grouping columns are in the order Spark's grouping_id() takes them (first appearance;
        Spark's names are case-insensitive); a set's grouping_id has the bit of each column it
        leaves out, the first column the highest. -#}
    {%- set keys = [] -%}
    {%- set combinations = [] -%}
    {%- for columns in unique -%}
        {%- set combination = columns | map("lower") | sort | join(",") -%}
        {%- if combination in combinations -%}
            {{ exceptions.raise_compiler_error("lakerep_column_contracts on " ~ model ~ ": the unique combination "
                ~ columns | join(", ") ~ " is listed twice") }}
        {%- endif -%}
        {%- do combinations.append(combination) -%}
        {%- for column in columns if column | lower not in keys -%}
            {%- do keys.append(column | lower) -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- set whole = namespace(id=0) -%}
    {%- for key in keys -%}
        {%- set whole.id = whole.id * 2 + 1 -%}
    {%- endfor -%}
    {%- set grouping_ids = [] -%}
    {%- for columns in unique -%}
        {%- set lowered = columns | map("lower") | list -%}
        {%- set set_id = namespace(id=0) -%}
        {%- for key in keys -%}
            {%- set set_id.id = set_id.id * 2 + (0 if key in lowered else 1) -%}
        {%- endfor -%}
        {%- do grouping_ids.append(set_id.id) -%}
    {%- endfor -%}
    {%- set grouping_sets = (["()"] if counted else []) -%}
    {%- for columns in unique -%}
        {%- do grouping_sets.append("(" ~ columns | join(", ") ~ ")") -%}
    {%- endfor %}

with

grouped as (
    select
        {{ "grouping_id()" if keys else "0" }} as grouping_set,
        count(*) as rows_in_group
        {%- for rule in counted %},
        count_if({{ rule.broken }}) as broken_{{ loop.index }},
        {{ rule.value }} as value_{{ loop.index }}
        {%- endfor %}
        {%- for columns in unique %},
        to_json(
            named_struct(
                {%- for column in columns %}
                '{{ column }}', {{ column }}{{ "," if not loop.last }}
                {%- endfor %}
            ),
            map('ignoreNullFields', 'false')
        ) as key_{{ loop.index }}
        {%- endfor %}
    from {{ model }}
    {%- if keys %}
    group by grouping sets ({{ grouping_sets | join(", ") }})
    {%- endif %}
),

broken_rules as (
    select
        inline(case
            {%- if counted %}
            when grouping_set = {{ whole.id }} then array(
                {%- for rule in counted %}
                named_struct(
                    'rule', '{{ rule.rule }}', 'column_names', '{{ rule.column }}',
                    'offending_value', value_{{ loop.index }}, 'failing_rows', broken_{{ loop.index }}
                ){{ "," if not loop.last }}
                {%- endfor %}
            )
            {%- endif %}
            {%- for columns in unique %}
            when grouping_set = {{ grouping_ids[loop.index0] }} and rows_in_group > 1 then array(
                named_struct(
                    'rule', 'unique', 'column_names', '{{ columns | join(", ") }}',
                    'offending_value', key_{{ loop.index }}, 'failing_rows', rows_in_group
                )
            )
            {%- endfor %}
        end)
    from grouped
)

select * from broken_rules where failing_rows > 0

{% endtest %}
