{#-
    SQL of the changes of one CD table whose UOW committed in the capture window (CD joined to
    UOW): IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION, IBMSNAP_LOGMARKER and the
    user columns. A UOW that commits in the window has its changes landed in the window, or
    (still open when the previous cycle ended) at or above the previous resync position, so
    older CD rows are never read. A source reading again from its restart tokens takes the UOWs
    committed after its RESTART2, with their CD rows at or above its RESTART1, and those the CD
    table already held for UOWs in flight: a UOW open at the restart point stays whole.
    Arguments: cd_relation — the CD model; registration; window — lakerep_capture_window().
-#}
{% macro lakerep_committed_changes(cd_relation, registration, window) %}
    {%- set source_window = lakerep_source_window(window, registration) %}
    select
        uow.IBMSNAP_COMMITSEQ,
        cd.IBMSNAP_INTENTSEQ,
        cd.IBMSNAP_OPERATION,
        uow.IBMSNAP_LOGMARKER,
        {%- for column in registration.columns %}
            cd.`{{ column.name }}`{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ cd_relation }} as cd
    inner join {{ ref('uow') }} as uow
        on cd.IBMSNAP_UOWID = uow.IBMSNAP_UOWID
    where
        uow.IBMSNAP_COMMITSEQ > {{ lakerep_string_literal(source_window.restart2) }}
        {%- if source_window.reread_from is none %}
            and {{ lakerep_in_capture_window(window, 'uow.landing_batch') }}
            and (
                {{ lakerep_in_capture_window(window, 'cd.landing_batch') }}
                or cd.IBMSNAP_INTENTSEQ >= {{ lakerep_string_literal(window.previous_resync_position) }}
            )
        {%- else %}
            and uow.landing_batch <= {{ window.up_to_batch }}
            and cd.landing_batch <= {{ window.up_to_batch }}
            and cd.IBMSNAP_INTENTSEQ >= {{ lakerep_string_literal(([source_window.reread_from, window.previous_resync_position] | min)) }}
        {%- endif %}
{% endmacro %}
