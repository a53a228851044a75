-- The one writer of an audit row, for the statements of db/functions/ and for audit.service.ts
-- `recordAudit` alike, so a row's shape is decided here only: the actor's name as `user_email`,
-- before and after states as given (NULL when there is none), `meta` an object. PL/pgSQL, whose
-- plans are kept for the session, as `slotwise_emit_event`.
CREATE OR REPLACE FUNCTION slotwise_record_audit(p_business uuid, p_actor text, p_action text,
  p_entity_type text, p_entity_id uuid, p_before jsonb, p_after jsonb, p_meta jsonb)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit_logs (business_id, user_email, action, entity_type, entity_id, before_state,
    after_state, meta)
  VALUES (p_business, p_actor, p_action, p_entity_type, p_entity_id, p_before, p_after,
    coalesce(p_meta, '{}'));
END $$;
