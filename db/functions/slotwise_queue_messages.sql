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
-- Any other event returns at once. A booking's path pays one read of the business's settings and
-- one INSERT of the wanted rows, small statements whose generic plans PL/pgSQL keeps for the
-- session; the earlier messages are read only for a reschedule or a cancellation. (One INSERT
-- joining the settings, the kinds of message and the earlier ones was planned anew on every call:
-- three quarters of its time.)
CREATE OR REPLACE FUNCTION slotwise_queue_messages(p_business uuid, p_type text, p_data json, p_actor text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_type text := CASE
    WHEN p_type = 'booking.confirmed' OR (p_type = 'booking.created' AND p_data->>'status' = 'confirmed')
      THEN 'booking_confirmed'
    WHEN p_type = 'booking.rescheduled' THEN 'booking_rescheduled'
    WHEN p_type = 'booking.cancelled' THEN 'booking_cancelled'
  END;
  v_data jsonb;
  v_booking uuid;
  v_guest_emails boolean;
  v_sms boolean;
  v_venue text;
  v_guest_email text;
  v_sequence integer := 0;
  v_told boolean := true;
BEGIN
  IF v_type IS NULL THEN
    RETURN;
  END IF;
  SELECT b.guest_emails_enabled, b.sms_enabled, b.venue_notification_email INTO v_guest_emails, v_sms, v_venue
  FROM businesses b WHERE b.id = p_business;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_data := p_data::jsonb;
  v_booking := (v_data->>'id')::uuid;
  v_guest_email := slotwise_guest_contact('email', v_data->'guest'->>'email', v_data->'customer'->>'email', NULL);
  IF v_type <> 'booking_confirmed' AND v_guest_emails AND v_guest_email IS NOT NULL THEN
    SELECT coalesce(max(o.sequence) + 1, 0), count(*) > 0 INTO v_sequence, v_told FROM message_outbox o
    WHERE o.booking_id = v_booking AND o.channel = 'email'
      AND o.type IN ('booking_confirmed', 'booking_rescheduled', 'booking_cancelled');
  END IF;
  INSERT INTO message_outbox (business_id, type, channel, to_address, booking_id, payload, sequence)
  SELECT p_business, m.type, m.channel, m.to_address, v_booking, v_data, m.sequence
  FROM (VALUES
    (v_type, 'email', v_guest_email, v_guest_emails AND v_told, v_sequence),
    (v_type, 'sms', slotwise_guest_contact('sms', NULL, NULL, v_data->'customer'->>'phone'),
      v_sms AND v_type = 'booking_confirmed', NULL),
    ('venue_new_booking', 'email', v_venue, v_type = 'booking_confirmed' AND v_data->>'source' = 'online', NULL),
    ('venue_guest_cancellation', 'email', v_venue,
      v_type = 'booking_cancelled' AND p_actor IS NOT DISTINCT FROM 'guest', NULL)
  ) AS m (type, channel, to_address, wanted, sequence)
  WHERE m.wanted AND m.to_address IS NOT NULL;
END $$;
