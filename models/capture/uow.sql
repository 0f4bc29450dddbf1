{{ config(materialized='view', lakerep_built='declaration') }}

{#-
    The unit-of-work table (IBMSNAP_UOW, SPEC §3): one row per committed UOW that changed a
    registered table, from its commit record: the captured log's UOW rows (IBMSNAP_OPERATION C).
    Rolled-back UOWs never appear (see uow_rollbacks).
-#}

select
    IBMSNAP_UOWID,
    IBMSNAP_INTENTSEQ as IBMSNAP_COMMITSEQ,
    IBMSNAP_LOGMARKER,
    IBMSNAP_AUTHTKN,
    IBMSNAP_AUTHID,
    '0' as IBMSNAP_REJ_CODE,
    '' as IBMSNAP_APPLY_QUAL,
    landing_batch
from {{ ref('captured_log') }}
where IBMSNAP_OPERATION = 'C'
