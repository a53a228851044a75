-- Which change tells whom: the one place it is decided, called by `slotwise_emit_event` in the
-- transaction of the change, with the booking as the API answers it (`p_data`), which each message
-- carries as its payload and is rendered from when sent.
-- - A booking that becomes confirmed (created confirmed, or confirmed later: by staff or by its
--   payment) tells the guest `booking_confirmed`: by email when the business sends guest emails and
--   an email is known (the guest's as given, else the customer's), by SMS when it sends SMS and a
--   phone is known; an online one also tells the venue (`venue_new_booking`) at its notification
--   address.
-- - A reschedule or a cancellation tells the guest by email only (SMS carries confirmations and
--   reminders alone), and only when the guest was emailed that the booking was confirmed: an unpaid
--   checkout that lapses tells nobody.
-- - A cancellation by the guest (`p_actor` 'guest') tells the venue (`venue_guest_cancellation`).
-- `sequence` is the SEQUENCE of the invite the message carries: 0 for the confirmation, one more for
-- each later message of the booking on that channel.
-- Any other event returns at once: the booking's hot path pays one INSERT ... SELECT at most.
CREATE OR REPLACE FUNCTION slotwise_queue_messages(p_business uuid, p_type text, p_data json, p_actor text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_type text := CASE
    WHEN p_type = 'booking.confirmed' OR (p_type = 'booking.created' AND p_data->>'status' = 'confirmed')
      THEN 'booking_confirmed'
    WHEN p_type = 'booking.rescheduled' THEN 'booking_rescheduled'
    WHEN p_type = 'booking.cancelled' THEN 'booking_cancelled'
  END;
  v_booking uuid;
BEGIN
  IF v_type IS NULL THEN
    RETURN;
  END IF;
  v_booking := (p_data->>'id')::uuid;
  INSERT INTO message_outbox (business_id, type, channel, to_address, booking_id, payload, sequence)
  SELECT p_business, m.type, m.channel, m.to_address, v_booking, p_data::jsonb,
    CASE WHEN m.channel = 'email' AND m.type = v_type THEN coalesce(prior.sequence + 1, 0) END
  FROM businesses b
  CROSS JOIN LATERAL (VALUES
    (v_type, 'email', nullif(coalesce(p_data->'guest'->>'email', p_data->'customer'->>'email'), ''),
      b.guest_emails_enabled),
    (v_type, 'sms', nullif(p_data->'customer'->>'phone', ''),
      b.sms_enabled AND v_type = 'booking_confirmed'),
    ('venue_new_booking', 'email', b.venue_notification_email,
      v_type = 'booking_confirmed' AND p_data->>'source' = 'online'),
    ('venue_guest_cancellation', 'email', b.venue_notification_email,
      v_type = 'booking_cancelled' AND p_actor IS NOT DISTINCT FROM 'guest')
  ) AS m (type, channel, to_address, wanted)
  LEFT JOIN LATERAL (
    SELECT max(o.sequence) AS sequence, count(*) AS told FROM message_outbox o
    WHERE o.booking_id = v_booking AND o.channel = m.channel
      AND o.type IN ('booking_confirmed', 'booking_rescheduled', 'booking_cancelled')
  ) AS prior ON m.type = v_type AND v_type <> 'booking_confirmed'
  WHERE b.id = p_business AND m.wanted AND m.to_address IS NOT NULL
    AND (m.type <> v_type OR v_type = 'booking_confirmed' OR prior.told > 0);
END $$;
