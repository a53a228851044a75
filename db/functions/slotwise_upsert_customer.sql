-- The one way a customer is matched by phone and written. A trusted caller's name and email
-- become the record's; anyone else attaches to the existing record and changes nothing.
CREATE OR REPLACE FUNCTION slotwise_upsert_customer(
  p_business uuid, p_first text, p_last text, p_phone text, p_phone_normalized text, p_email text,
  p_trusted boolean
) RETURNS SETOF customers LANGUAGE plpgsql AS $$
BEGIN
  IF p_trusted THEN
    RETURN QUERY
      INSERT INTO customers AS c (business_id, first_name, last_name, phone, phone_normalized, email)
      VALUES (p_business, p_first, p_last, p_phone, p_phone_normalized, p_email)
      ON CONFLICT (business_id, phone_normalized) DO UPDATE SET
        first_name = excluded.first_name, last_name = excluded.last_name, phone = excluded.phone,
        email = coalesce(excluded.email, c.email), updated_at = now()
      RETURNING c.*;
    RETURN;
  END IF;
  RETURN QUERY
    INSERT INTO customers (business_id, first_name, last_name, phone, phone_normalized, email)
    VALUES (p_business, p_first, p_last, p_phone, p_phone_normalized, p_email)
    ON CONFLICT (business_id, phone_normalized) DO NOTHING
    RETURNING *;
  IF NOT FOUND THEN
    RETURN QUERY SELECT * FROM customers WHERE business_id = p_business AND phone_normalized = p_phone_normalized;
  END IF;
END $$;
