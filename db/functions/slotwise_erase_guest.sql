-- Erases a guest on request (docs/api-behaviour.md, "Guest profiles and privacy"): the names,
-- email, phone, notes and allergies of the profile, of the profiles merged into it, and of their
-- bookings and waitlist entries become nothing, in every table that copied them: rendered
-- messages (an unsent one is given up), audit states, webhook events, stored idempotent answers,
-- simulated processor objects, SMS counters. The bookings stay, anonymous, for the venue's counts.
-- The erased profile keeps its id; its phone key becomes one no phone can match, so the guest
-- booking again starts a new profile. A profile merged away, erased already, or missing is left.
CREATE OR REPLACE FUNCTION slotwise_erase_guest(p_business uuid, p_customer uuid, p_actor text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_ids uuid[];
  v_bookings uuid[];
  v_entries uuid[];
  v_nationals text[];
  v_secrets text[];
  v_about uuid[];
  -- What a stored state or event of a booking or profile holds of its guest, whatever its value.
  v_personal text[] := ARRAY['customer', 'guest', 'customer_notes', 'staff_notes', 'notes', 'allergies',
    'first_name', 'last_name', 'email', 'phone'];
BEGIN
  SELECT array_agg(id) INTO v_ids FROM (
    SELECT id FROM customers
    WHERE business_id = p_business AND (id = p_customer OR merged_into = p_customer)
      AND erased_at IS NULL
      AND (id <> p_customer OR merged_into IS NULL)
    ORDER BY id FOR UPDATE) AS held;
  IF v_ids IS NULL OR NOT p_customer = ANY (v_ids) THEN
    RETURN;
  END IF;
  SELECT array_agg(id) INTO v_bookings FROM bookings WHERE business_id = p_business AND customer_id = ANY (v_ids);
  SELECT array_agg(id) INTO v_entries FROM waitlist_entries
    WHERE business_id = p_business AND customer_id = ANY (v_ids);
  SELECT array_agg(DISTINCT national) INTO v_nationals FROM (
    SELECT nullif(phone_national, '') AS national FROM customers WHERE business_id = p_business AND id = ANY (v_ids)
  ) AS phones WHERE national IS NOT NULL;
  SELECT array_agg(DISTINCT secret) INTO v_secrets FROM (
    SELECT unnest(ARRAY[first_name, last_name, email, phone, phone_normalized, phone_national, allergies, staff_notes])
      AS secret
    FROM customers WHERE business_id = p_business AND id = ANY (v_ids)
    UNION ALL
    SELECT unnest(ARRAY[guest_first_name, guest_last_name, guest_email, customer_notes, staff_notes]) FROM bookings
    WHERE business_id = p_business AND id = ANY (coalesce(v_bookings, '{}'))
    UNION ALL
    SELECT unnest(ARRAY[guest_first_name, guest_last_name, guest_email, notes]) FROM waitlist_entries
    WHERE business_id = p_business AND id = ANY (coalesce(v_entries, '{}'))
  ) AS held WHERE nullif(btrim(secret), '') IS NOT NULL;
  v_secrets := coalesce(v_secrets, '{}');

  UPDATE bookings SET guest_first_name = NULL, guest_last_name = NULL, guest_email = NULL,
    customer_notes = NULL, staff_notes = NULL
  WHERE business_id = p_business AND id = ANY (coalesce(v_bookings, '{}'));
  UPDATE waitlist_entries SET guest_first_name = NULL, guest_last_name = NULL, guest_email = NULL, notes = NULL
  WHERE business_id = p_business AND id = ANY (coalesce(v_entries, '{}'));
  UPDATE message_outbox SET to_address = '', subject = '', body_text = '', payload = '{}', sms_to = NULL,
    failed_at = CASE WHEN sent_at IS NULL THEN coalesce(failed_at, now()) ELSE failed_at END,
    last_error = CASE WHEN sent_at IS NULL AND failed_at IS NULL THEN 'erased' ELSE last_error END
  WHERE business_id = p_business AND (booking_id = ANY (coalesce(v_bookings, '{}'))
    OR waitlist_entry_id = ANY (coalesce(v_entries, '{}'))
    OR EXISTS (SELECT 1 FROM unnest(v_secrets) AS secret
      WHERE strpos(lower(concat_ws(' ', to_address, subject, body_text, payload::text, sms_to)), lower(secret)) > 0));
  -- The rows about the guest, their bookings and entries lose every personal field, earlier values
  -- too; any other row loses the strings that name the guest.
  v_about := v_ids || coalesce(v_bookings, '{}') || coalesce(v_entries, '{}');
  UPDATE audit_logs SET
    before_state = slotwise_redact(before_state, v_secrets, CASE WHEN entity_id = ANY (v_about) THEN v_personal ELSE '{}' END),
    after_state = slotwise_redact(after_state, v_secrets, CASE WHEN entity_id = ANY (v_about) THEN v_personal ELSE '{}' END),
    meta = slotwise_redact(meta, v_secrets)
  WHERE business_id = p_business AND (entity_id = ANY (v_about) OR EXISTS (SELECT 1 FROM unnest(v_secrets) AS secret
    WHERE strpos(lower(concat_ws(' ', before_state::text, after_state::text, meta::text)), lower(secret)) > 0));
  UPDATE webhook_events SET data = slotwise_redact(data::jsonb, v_secrets, v_personal)::json
  WHERE business_id = p_business AND EXISTS (SELECT 1 FROM unnest(v_about) AS about
    WHERE strpos(data::text, about::text) > 0);
  UPDATE webhook_events SET data = slotwise_redact(data::jsonb, v_secrets)::json
  WHERE business_id = p_business AND EXISTS (SELECT 1 FROM unnest(v_secrets) AS secret
    WHERE strpos(lower(data::text), lower(secret)) > 0);
  DELETE FROM idempotency_keys WHERE NOT sealed AND EXISTS (SELECT 1 FROM unnest(v_secrets) AS secret
    WHERE strpos(lower(response_body), lower(secret)) > 0);
  UPDATE simulated_processor_objects SET object = slotwise_redact(object, v_secrets)
  WHERE EXISTS (SELECT 1 FROM unnest(v_secrets) AS secret WHERE strpos(lower(object::text), lower(secret)) > 0);
  DELETE FROM sms_counts WHERE slotwise_phone_national(number) = ANY (coalesce(v_nationals, '{}'));

  UPDATE customers SET first_name = '', last_name = '', phone = '', phone_normalized = '~' || id, email = NULL,
    tags = '{}', allergies = NULL, staff_notes = NULL, preferred_language = NULL, marketing_opt_in = false,
    erased_at = now(), updated_at = now()
  WHERE business_id = p_business AND id = ANY (v_ids);
  PERFORM slotwise_record_audit(p_business, p_actor, 'customer.erased', 'customer', p_customer, NULL, NULL,
    jsonb_build_object('profiles', cardinality(v_ids), 'bookings', cardinality(coalesce(v_bookings, '{}'))));
END $$;
