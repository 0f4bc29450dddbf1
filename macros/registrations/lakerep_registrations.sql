{#-
    The registered source tables: a list of dicts with source_owner, source_table, key_columns,
    columns ({name, data_type}), before_image_prefix, key_updates_as_delete_insert,
    ccd_condensed, ccd_complete, disable_refresh. The declaration is
    models/staging/_registrations__sources.yml; `lakerep scaffold` turns it into
    lakerep_registration_declarations() (macros/generated/), which is available at parse time.

    At run time the source's schema history (lakerep_schema_history, ADR 0012) evolves it: a
    column added at the source follows the declared ones (added_at: its position; default: what
    the rows before it hold), a widened one takes its wider type (widened), a dropped one stays
    (dropped_at: from there on it is null), and an unsafe change stops the table (stopped_at,
    stop_detail). Redeploying a declaration from before a change, or one that holds it already
    (lakerep register --sync), gives the same registrations. Evolved once per invocation.
-#}
{% macro lakerep_registrations() %}
    {%- set declared = lakerep_registration_declarations() -%}
    {%- set history = lakerep_schema_history() -%}
    {%- if not history -%}
        {{ return(declared) }}
    {%- endif -%}
    {%- set memo = graph.setdefault('lakerep_evolved_registrations', {}) -%}
    {%- if memo.get('invocation_id') != invocation_id -%}
        {%- do memo.clear() -%}
        {%- set evolved = [] -%}
        {%- for registration in declared -%}
            {%- do evolved.append(_lakerep_evolved(registration, history)) -%}
        {%- endfor -%}
        {%- do memo.update({'invocation_id': invocation_id, 'registrations': evolved}) -%}
    {%- endif -%}
    {{ return(memo.registrations) }}
{% endmacro %}


{#- One registration with the history's changes of its table, in log order. An unsafe change
    stops it, unless the declaration holds the source's columns after it (declared again:
    lakerep register --sync), which resumes it from there. -#}
{% macro _lakerep_evolved(registration, history) %}
    {%- set declared = [] -%}
    {%- for column in registration.columns -%}
        {%- do declared.append([column.name, column.data_type | lower]) -%}
    {%- endfor -%}
    {%- set state = namespace(columns=_lakerep_declared_columns(registration), stop={}) -%}
    {%- for owner, table, position, kind, name, data_type, default, detail, columns_after in history
        if owner == registration.source_owner and table == registration.source_table -%}
        {%- set held = state.columns | selectattr('name', 'equalto', name) | list -%}
        {%- if kind == 'unsafe' and fromjson(columns_after) == declared -%}
            {%- set state.columns = _lakerep_declared_columns(registration) -%}
            {%- set state.stop = {} -%}
        {%- elif state.stop -%}
        {%- elif kind == 'unsafe' -%}
            {%- set state.stop = {'stopped_at': position, 'stop_detail': detail} -%}
        {%- elif kind == 'add_column' and not held -%}
            {%- do state.columns.append({'name': name, 'data_type': data_type, 'added_at': position, 'default': default}) -%}
        {%- elif kind == 'add_column' -%}
            {#- declared since (synced): rows from before it still hold its default -#}
            {%- do held[0].update({'added_at': position, 'default': default}) -%}
        {%- elif kind == 'widen_column' and held -%}
            {%- do held[0].update({'data_type': data_type, 'widened': true}) -%}
        {%- elif kind == 'drop_column' and held -%}
            {%- do held[0].update({'dropped_at': position}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set evolved = registration.copy() -%}
    {%- do evolved.update({
        'columns': state.columns,
        'stopped_at': state.stop.get('stopped_at'),
        'stop_detail': state.stop.get('stop_detail'),
    }) -%}
    {{ return(evolved) }}
{% endmacro %}


{#- The declared columns, as new dicts the history may change. -#}
{% macro _lakerep_declared_columns(registration) %}
    {%- set columns = [] -%}
    {%- for column in registration.columns -%}
        {%- do columns.append({'name': column.name, 'data_type': column.data_type}) -%}
    {%- endfor -%}
    {{ return(columns) }}
{% endmacro %}
