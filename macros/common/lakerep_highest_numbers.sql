{#-
    The highest value of each named column, as a dict of name to value (none for a table not
    there yet, or empty): one query, a union of one branch per table, each a bare max() over the
    whole table, which Delta answers from its file statistics without reading a file (a filter, a
    coalesce or a max_by around it would read them). Not a scalar subquery per number in one row:
    Spark runs each subquery as jobs of its own, about twice the jobs and the seconds of the union
    (docs/benchmarks.md). Arguments: tables — a list of (relation or none, [(name, column), ...]).
-#}
{% macro lakerep_highest_numbers(tables) %}
    {%- set width = tables | map(attribute=1) | map('length') | max -%}
    {%- set branches = [] -%}
    {%- for relation, columns in tables -%}
        {%- set pairs = [] -%}
        {%- for index in range(width) -%}
            {%- set named = columns[index] if index < columns | length else none -%}
            {%- do pairs.append(
                (lakerep_string_literal(named[0]) if named else 'cast(null as string)') ~ ' as name_' ~ index ~ ', '
                ~ ('max(' ~ named[1] ~ ')' if named and relation is not none else 'cast(null as bigint)')
                ~ ' as value_' ~ index
            ) -%}
        {%- endfor -%}
        {%- do branches.append('select ' ~ pairs | join(', ') ~ (' from ' ~ relation if relation is not none else '')) -%}
    {%- endfor -%}
    {%- set numbers = {} -%}
    {%- for row in run_query(branches | join(' union all ')).rows -%}
        {%- for index in range(width) if row['name_' ~ index] is not none -%}
            {%- do numbers.update({row['name_' ~ index]: row['value_' ~ index]}) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(numbers) }}
{% endmacro %}
