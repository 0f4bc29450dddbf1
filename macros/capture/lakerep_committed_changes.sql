{#-
    SQL of the changes of every registered table whose UOW committed in the capture window (the
    captured log's CD rows joined to its UOW rows): source_owner, source_table,
    IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION, IBMSNAP_LOGMARKER (the commit's
    time), row_key, row_image. A UOW that commits in the window has its changes landed in the
    window, or (still open when the previous cycle ended) at or above the previous resync
    position, so older CD rows are never read (a change landed in the window may lie below that
    position: landing order is not log order). A source reading again from its restart tokens
    takes the UOWs committed after its RESTART2, with their CD rows at or above its RESTART1, and
    those the captured log already held for UOWs in flight: a UOW open at the restart point stays
    whole.
    Argument: window — lakerep_capture_window().
-#}
{% macro lakerep_committed_changes(window) %}
    {%- set captured = ref('captured_log') -%}
    {%- set registrations = lakerep_registrations() -%}
    {%- set rereads = window.sources.values() | selectattr('reread_from') | list -%}
    select
        cd.source_owner,
        cd.source_table,
        uow.IBMSNAP_INTENTSEQ as IBMSNAP_COMMITSEQ,
        cd.IBMSNAP_INTENTSEQ,
        cd.IBMSNAP_OPERATION,
        uow.IBMSNAP_LOGMARKER,
        cd.row_key,
        cd.row_image
    from {{ captured }} as cd
    inner join {{ captured }} as uow
        on cd.IBMSNAP_UOWID = uow.IBMSNAP_UOWID
    where
        uow.IBMSNAP_OPERATION = 'C'
        and cd.IBMSNAP_OPERATION != 'C'
        and {% if rereads %}uow.landing_batch <= {{ window.up_to_batch }}{% else %}{{ lakerep_in_capture_window(window, 'uow.landing_batch') }}{% endif %}
        -- What every source's condition below implies, outside the CASE, where Delta skips files by it.
        and cd.landing_batch <= {{ window.up_to_batch }}
        and (
            {{ lakerep_in_capture_window(window, 'cd.landing_batch') }}
            or cd.IBMSNAP_INTENTSEQ >= {{ lakerep_string_literal(([window.previous_resync_position]
                + (rereads | map(attribute='reread_from') | list)) | min) }}
        )
        and case concat(cd.source_owner, '.', cd.source_table)
            {%- for registration in registrations %}
            {%- set source = lakerep_source_window(window, registration) %}
            when {{ lakerep_string_literal(registration.source_owner ~ '.' ~ registration.source_table) }} then
                uow.IBMSNAP_INTENTSEQ > {{ lakerep_string_literal(source.restart2) }}
                {%- if source.reread_from is none %}
                and {{ lakerep_in_capture_window(window, 'uow.landing_batch') }}
                and (
                    {{ lakerep_in_capture_window(window, 'cd.landing_batch') }}
                    or cd.IBMSNAP_INTENTSEQ >= {{ lakerep_string_literal(window.previous_resync_position) }}
                )
                {%- else %}
                and cd.landing_batch <= {{ window.up_to_batch }}
                and cd.IBMSNAP_INTENTSEQ >= {{ lakerep_string_literal(([source.reread_from, window.previous_resync_position] | min)) }}
                {%- endif %}
            {%- endfor %}
            else false
        end
{% endmacro %}
