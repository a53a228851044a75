-- Where a booking's messages to its guest go on `p_channel`: email to the address given with the
-- booking, else its customer's; SMS to the customer's phone. Null when there is none, as for an
-- erased guest, whose profile keeps an empty phone.
CREATE OR REPLACE FUNCTION slotwise_guest_contact(
  p_channel text, p_guest_email text, p_customer_email text, p_customer_phone text
) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT nullif(CASE p_channel
    WHEN 'email' THEN coalesce(p_guest_email, p_customer_email)
    WHEN 'sms' THEN p_customer_phone
  END, '')
$$;
