-- The one way an event enters the outboxes: a delivery per active endpoint subscribed to it
-- (nothing at all when no endpoint is), and the messages it tells guests and the venue
-- (`slotwise_queue_messages`). `p_actor` is who made the change, when the caller knows it (the
-- booking statements do). PL/pgSQL, whose plans are kept for the session: as a SQL function it was
-- a fifth of a booking's time in the database.
CREATE OR REPLACE FUNCTION slotwise_emit_event(p_business uuid, p_type text, p_data json, p_subject text,
  p_actor text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_targets uuid[];
  v_event webhook_events;
BEGIN
  PERFORM slotwise_queue_messages(p_business, p_type, p_data, p_actor);
  SELECT array_agg(id) INTO v_targets FROM webhook_endpoints
  WHERE business_id = p_business AND is_active AND events && ARRAY[p_type, '*'];
  IF v_targets IS NULL THEN
    RETURN;
  END IF;
  INSERT INTO webhook_events (business_id, type, data) VALUES (p_business, p_type, p_data)
  RETURNING * INTO v_event;
  INSERT INTO webhook_deliveries (business_id, endpoint_id, event_id, subject_key, next_attempt_at)
  SELECT p_business, target, v_event.id, p_subject, v_event.created_at FROM unnest(v_targets) AS target;
END $$;
