{#-
    SQL: the key of a row whose key columns are typed columns (a target's, a typed CD or CCD row):
    the same JSON text lakerep_row_key gives the row's image.
    Arguments: registration; prefix — what qualifies the columns (e.g. 'target.'), default none.
-#}
{% macro lakerep_typed_row_key(registration, prefix='') -%}
    to_json(array(
        {%- for key in registration.key_columns %}
        cast({{ prefix }}`{{ key }}` as string){{ ',' if not loop.last }}
        {%- endfor %}
    ))
{%- endmacro %}
