-- Merges a duplicate profile into the kept one (docs/api-behaviour.md, "Guest profiles and
-- privacy"): its bookings and waitlist entries (and with them their messages) move, its tags (up
-- to 20 in all), allergies and notes join the kept ones, a consent either gave stays given; the duplicate stays
-- as a pointer, so its phone reaches the kept profile (slotwise_upsert_customer). Both are locked
-- FOR UPDATE first, which a booking's lock on its customer (FOR KEY SHARE) waits for or makes this
-- wait for: a booking placed meanwhile for the duplicate is moved too, or lands on the kept one.
-- Answers 'merged', or why not: 'missing' (either is not a live profile of the business),
-- 'erased' (either was erased).
CREATE OR REPLACE FUNCTION slotwise_merge_guests(p_business uuid, p_duplicate uuid, p_kept uuid, p_actor text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_duplicate customers;
  v_kept customers;
BEGIN
  PERFORM 1 FROM customers WHERE business_id = p_business AND id IN (p_duplicate, p_kept) ORDER BY id FOR UPDATE;
  SELECT * INTO v_duplicate FROM customers WHERE business_id = p_business AND id = p_duplicate AND merged_into IS NULL;
  SELECT * INTO v_kept FROM customers WHERE business_id = p_business AND id = p_kept AND merged_into IS NULL;
  IF v_duplicate.id IS NULL OR v_kept.id IS NULL THEN
    RETURN 'missing';
  END IF;
  IF v_duplicate.erased_at IS NOT NULL OR v_kept.erased_at IS NOT NULL THEN
    RETURN 'erased';
  END IF;
  UPDATE bookings SET customer_id = p_kept WHERE business_id = p_business AND customer_id = p_duplicate;
  UPDATE waitlist_entries SET customer_id = p_kept WHERE business_id = p_business AND customer_id = p_duplicate;
  UPDATE customers SET merged_into = p_kept WHERE business_id = p_business AND merged_into = p_duplicate;
  UPDATE customers SET
    tags = ((SELECT coalesce(array_agg(tag ORDER BY first_seen), '{}') FROM (
      SELECT tag, min(ord) AS first_seen FROM unnest(v_kept.tags || v_duplicate.tags) WITH ORDINALITY AS t(tag, ord)
      GROUP BY tag) AS joined))[1:20],
    allergies = nullif(concat_ws('; ', v_kept.allergies,
      CASE WHEN v_duplicate.allergies IS DISTINCT FROM v_kept.allergies THEN v_duplicate.allergies END), ''),
    staff_notes = nullif(concat_ws(E'\n', v_kept.staff_notes,
      CASE WHEN v_duplicate.staff_notes IS DISTINCT FROM v_kept.staff_notes THEN v_duplicate.staff_notes END), ''),
    email = coalesce(v_kept.email, v_duplicate.email),
    preferred_language = coalesce(v_kept.preferred_language, v_duplicate.preferred_language),
    marketing_opt_in = v_kept.marketing_opt_in OR v_duplicate.marketing_opt_in,
    updated_at = now()
  WHERE business_id = p_business AND id = p_kept;
  UPDATE customers SET merged_into = p_kept, tags = '{}', allergies = NULL, staff_notes = NULL,
    marketing_opt_in = false, updated_at = now()
  WHERE business_id = p_business AND id = p_duplicate;
  PERFORM slotwise_record_audit(p_business, p_actor, 'customer.merged', 'customer', p_kept, NULL, NULL,
    jsonb_build_object('merged', p_duplicate));
  RETURN 'merged';
END $$;
