-- The one way a customer is matched by phone and written. A trusted caller's name and email
-- become the record's; anyone else attaches to the existing record and changes nothing. A returning
-- customer whose record already says what the caller sent is only read: the INSERT ... ON CONFLICT
-- would compute the proposed row's search keys (trigger customers_search) before finding the
-- conflict, and rewrite the row and its index entries for the same text.
-- A phone of a profile merged into another reaches the kept one. The record found is locked FOR KEY
-- SHARE, as the booking's foreign key would lock it anyway: a merge (FOR UPDATE) running meanwhile
-- is waited for and its result read, so no booking lands on a profile merged away.
-- A guest without a phone (a walk-in who gave none: `p_phone_normalized` null) gets a profile of
-- its own whose phone key no phone can match, as an erased one's (slotwise_erase_guest).
CREATE OR REPLACE FUNCTION slotwise_upsert_customer(
  p_business uuid, p_first text, p_last text, p_phone text, p_phone_normalized text, p_email text,
  p_trusted boolean
) RETURNS SETOF customers LANGUAGE plpgsql AS $$
DECLARE
  v_found customers;
  v_id uuid;
BEGIN
  IF p_phone_normalized IS NULL THEN
    v_id := gen_random_uuid();
    RETURN QUERY
      INSERT INTO customers (id, business_id, first_name, last_name, phone, phone_normalized, email)
      VALUES (v_id, p_business, p_first, p_last, '', '~' || v_id, p_email)
      RETURNING *;
    RETURN;
  END IF;
  SELECT * INTO v_found FROM customers WHERE business_id = p_business AND phone_normalized = p_phone_normalized
    FOR KEY SHARE;
  IF FOUND AND v_found.merged_into IS NOT NULL THEN
    SELECT * INTO v_found FROM customers WHERE business_id = p_business AND id = v_found.merged_into FOR KEY SHARE;
    IF p_trusted AND (v_found.first_name, v_found.last_name, v_found.email)
      IS DISTINCT FROM (p_first, p_last, coalesce(p_email, v_found.email)) THEN
      UPDATE customers SET first_name = p_first, last_name = p_last, email = coalesce(p_email, email), updated_at = now()
      WHERE business_id = p_business AND id = v_found.id RETURNING * INTO v_found;
    END IF;
    RETURN NEXT v_found;
    RETURN;
  END IF;
  IF FOUND AND (NOT p_trusted OR (v_found.first_name, v_found.last_name, v_found.phone, v_found.email)
    IS NOT DISTINCT FROM (p_first, p_last, p_phone, coalesce(p_email, v_found.email))) THEN
    RETURN NEXT v_found;
    RETURN;
  END IF;
  IF p_trusted THEN
    RETURN QUERY
      INSERT INTO customers AS c (business_id, first_name, last_name, phone, phone_normalized, email)
      VALUES (p_business, p_first, p_last, p_phone, p_phone_normalized, p_email)
      ON CONFLICT (business_id, phone_normalized) DO UPDATE SET
        first_name = excluded.first_name, last_name = excluded.last_name, phone = excluded.phone,
        email = coalesce(excluded.email, c.email), updated_at = now()
      WHERE (c.first_name, c.last_name, c.phone, c.email) IS DISTINCT FROM
        (excluded.first_name, excluded.last_name, excluded.phone, coalesce(excluded.email, c.email))
      RETURNING c.*;
  ELSE
    RETURN QUERY
      INSERT INTO customers (business_id, first_name, last_name, phone, phone_normalized, email)
      VALUES (p_business, p_first, p_last, p_phone, p_phone_normalized, p_email)
      ON CONFLICT (business_id, phone_normalized) DO NOTHING
      RETURNING *;
  END IF;
  -- Another transaction wrote the same record meanwhile, as this one would have.
  IF NOT FOUND THEN
    RETURN QUERY SELECT * FROM customers WHERE business_id = p_business AND phone_normalized = p_phone_normalized;
  END IF;
END $$;
