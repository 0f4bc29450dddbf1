{#-
    The model's contract as [[name, data type], ...], in the order its YAML declares them: the
    table's columns and the columns every write names. A model that holds a registered table's
    columns (lakerep_model_registration) follows the table's schema history (ADR 0012): a widened
    column has its wider type, and the columns added at the source follow the declared ones, in
    the order they were added (with their before-image columns, where the model has those).
-#}
{% macro lakerep_contract_columns() %}
    {%- set columns = [] -%}
    {%- for column in model.columns.values() -%}
        {%- if column.data_type is none -%}
            {{ exceptions.raise_compiler_error(model.name ~ ': column ' ~ column.name ~ ' has no data_type in its contract') }}
        {%- endif -%}
        {%- do columns.append([column.name, column.data_type]) -%}
    {%- endfor -%}
    {%- if not columns -%}
        {{ exceptions.raise_compiler_error(model.name ~ ' declares no columns: an incremental model of this project writes its contract') }}
    {%- endif -%}
    {%- set registration = lakerep_model_registration(model.name) if execute else none -%}
    {{ return(columns if registration is none else _lakerep_evolved_contract(columns, registration)) }}
{% endmacro %}


{#- The declared contract with the registration's evolution: widened types, added columns. -#}
{% macro _lakerep_evolved_contract(columns, registration) %}
    {%- set names = columns | map(attribute=0) | list -%}
    {%- set prefix = registration.before_image_prefix -%}
    {%- set prefixes = [''] -%}
    {%- if prefix is not none and (prefix ~ registration.columns[0].name) in names -%}
        {%- do prefixes.append(prefix) -%}
    {%- endif -%}
    {%- set evolved = [] -%}
    {%- for name, data_type in columns -%}
        {%- set widened = [] -%}
        {%- for column in registration.columns if column.widened -%}
            {%- for before in prefixes if before ~ column.name == name -%}
                {%- do widened.append(column.data_type) -%}
            {%- endfor -%}
        {%- endfor -%}
        {%- do evolved.append([name, widened[0] if widened else data_type]) -%}
    {%- endfor -%}
    {%- for before in prefixes -%}
        {%- for column in registration.columns if column.added_at and (before ~ column.name) not in names -%}
            {%- do evolved.append([before ~ column.name, column.data_type]) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(evolved) }}
{% endmacro %}
