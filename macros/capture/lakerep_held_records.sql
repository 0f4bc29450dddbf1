{#-
    SQL of the records that hold their UOW back whole (a transaction moves whole or not at all):
    the landed records, up to the window's last batch, that validation quarantined for what they
    hold, a change of a registered table or of no table it could name (uow_id, source_owner,
    source_table, quarantine_reason). A record quarantined only for where it lands (a position
    taken, a second end of its UOW, a change after its UOW's end) holds nothing back: the UOW is
    whole without it. Quarantined records are few and their files known by their statistics, so
    this reads them all, wherever the UOW's other records landed.
    Arguments: window — lakerep_capture_window().
-#}
{% macro lakerep_held_records(window) %}
    select
        uow_id,
        source_owner,
        source_table,
        quarantine_reason
    from {{ ref('int_log_records_judged') }}
    where
        quarantine_reason is not null
        and quarantine_reason not in ('duplicate_log_position', 'uow_already_ended', 'change_after_uow_end')
        and uow_id is not null
        and landing_batch <= {{ window.up_to_batch }}
        and (
            {{ lakerep_is_registered('source_owner', 'source_table') }}
            or coalesce(trim(source_owner), '') = ''
            or coalesce(trim(source_table), '') = ''
        )
{% endmacro %}
