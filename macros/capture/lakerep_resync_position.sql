{#-
    SQL of one row: where the previous cycle left Capture (resync_position, the begin of the
    oldest UOW still open then) and which table said so (resync_source). As DB2 Capture does on a
    warm start (seed 002): the warm-start table's lowest SEQ; without a usable warm-start row,
    the register's global SYNCHPOINT, else the UOW table's highest COMMITSEQ, else the CD tables'
    highest INTENTSEQ; on an empty lake, the lowest position. Read by name: these tables are
    written later in the cycle that reads this. The warm-start table is read first, on its own:
    with a row (every cycle after one that read something) its SEQ is the answer, as a literal,
    and the other tables are not probed (the statement would touch every CD table).
-#}
{% macro lakerep_resync_position() %}
    {%- set candidates = [] -%}
    {%- set warm_start = lakerep_control_relation('warm_start') -%}
    {%- if warm_start is not none -%}
        {%- set lowest_seq = lakerep_oldest_in_flight_seq(warm_start) -%}
        {%- if lowest_seq is not none -%}
            {{ return('select ' ~ lakerep_string_literal(lowest_seq) | trim ~ " as resync_position, 'warm start table' as resync_source") }}
        {%- endif -%}
    {%- endif -%}
    {%- set register = lakerep_control_relation('register') -%}
    {%- if register is not none -%}
        {%- do candidates.append(['register', 'select max(SYNCHPOINT) from ' ~ register ~ " where GLOBAL_RECORD = 'Y'"]) -%}
    {%- endif -%}
    {%- set uow = lakerep_control_relation('uow', schema='capture') -%}
    {%- if uow is not none -%}
        {%- do candidates.append(['uow table', 'select max(IBMSNAP_COMMITSEQ) from ' ~ uow]) -%}
    {%- endif -%}
    {%- set cd_queries = [] -%}
    {%- for registration in lakerep_registrations() -%}
        {%- set cd = lakerep_control_relation(lakerep_cd_model_name(registration.source_owner, registration.source_table), schema='capture') -%}
        {%- if cd is not none -%}
            {%- do cd_queries.append('select max(IBMSNAP_INTENTSEQ) as position from ' ~ cd) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if cd_queries -%}
        {%- do candidates.append(['cd tables', 'select max(position) from (' ~ cd_queries | join(' union all ') ~ ') as cd_positions']) -%}
    {%- endif %}
    select
        coalesce(min_by(position, priority), '{{ lakerep_lowest_position() }}') as resync_position,
        coalesce(min_by(label, priority), 'none') as resync_source
    from (
        select cast(null as int) as priority, cast(null as string) as label, cast(null as string) as position
        {%- for label, query in candidates %}
            union all
            select {{ loop.index }}, '{{ label }}', ({{ query }})
        {%- endfor %}
    ) as probes
    where position is not null
{% endmacro %}
