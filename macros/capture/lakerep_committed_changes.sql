{#-
    SQL of the changes of one CD table whose UOW committed in the capture window (CD joined to
    UOW): IBMSNAP_COMMITSEQ, IBMSNAP_INTENTSEQ, IBMSNAP_OPERATION, IBMSNAP_LOGMARKER and the
    user columns. A UOW that commits in the window has its changes landed in the window, or
    (still open when the previous cycle ended) at or above the previous resync position, so
    older CD rows are never read.
    Arguments: cd_relation — the CD model; registration; window — lakerep_capture_window().
-#}
{% macro lakerep_committed_changes(cd_relation, registration, window) %}
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
        {{ lakerep_in_capture_window(window, 'uow.landing_batch') }}
        and (
            {{ lakerep_in_capture_window(window, 'cd.landing_batch') }}
            or cd.IBMSNAP_INTENTSEQ >= '{{ window.previous_resync_position }}'
        )
{% endmacro %}
