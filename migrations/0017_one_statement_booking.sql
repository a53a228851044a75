-- A booking in one round trip: the rules are checked by the application from its caches, and
-- everything the database must do to place the booking runs here, in one statement (one
-- transaction when called alone). The exclusion constraint stays the judge: a candidate resource
-- taken meanwhile is skipped inside a subtransaction and the next one is tried.

-- The one way a customer is matched by phone and written. A trusted caller's name and email
-- become the record's; anyone else attaches to the existing record and changes nothing.
CREATE FUNCTION slotwise_upsert_customer(
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

-- The one way an event enters the webhook outbox: a delivery per active endpoint subscribed to
-- it; nothing at all when no endpoint is.
CREATE FUNCTION slotwise_emit_event(p_business uuid, p_type text, p_data json, p_subject text)
RETURNS void LANGUAGE sql AS $$
  WITH targets AS (
    SELECT id FROM webhook_endpoints
    WHERE business_id = p_business AND is_active AND events && ARRAY[p_type, '*']
  ), event AS (
    INSERT INTO webhook_events (business_id, type, data)
    SELECT p_business, p_type, p_data
    WHERE EXISTS (SELECT 1 FROM targets)
    RETURNING id, created_at
  )
  INSERT INTO webhook_deliveries (business_id, endpoint_id, event_id, subject_key, next_attempt_at)
  SELECT p_business, targets.id, event.id, p_subject, event.created_at FROM targets CROSS JOIN event
$$;

-- Places a booking (`p`, built by bookings.service.ts `placeBooking`) on the first candidate
-- resource that is still active and free, with its customer, deposit, audit row, outbox event and
-- the developer's monthly count, and answers the booking as the API shows it: `p.view` with what
-- only the database decides filled in. Refusals raise, so nothing of the booking is left:
-- SWQ02 when the monthly quota is used up, SWB09 when no candidate is free.
CREATE FUNCTION slotwise_place_booking(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_business uuid := (p->>'business_id')::uuid;
  v_id uuid := (p->>'id')::uuid;
  v_during tstzrange := (p->>'during')::tstzrange;
  v_created timestamptz := date_trunc('milliseconds', now());
  v_customer customers;
  v_resource record;
  v_code text;
  v_placed boolean := false;
  v_candidate text;
  v_view jsonb;
  v_stamp text;
BEGIN
  -- A fast refusal; the count at the end is what holds under concurrency.
  IF jsonb_typeof(p->'quota') = 'object' AND EXISTS (
    SELECT 1 FROM booking_usage
    WHERE developer_id = (p->'quota'->>'developer_id')::uuid AND month = (p->'quota'->>'month')::date
      AND bookings >= (p->'quota'->>'limit')::int
  ) THEN
    RAISE EXCEPTION 'monthly booking quota reached' USING ERRCODE = 'SWQ02';
  END IF;

  SELECT * INTO v_customer FROM slotwise_upsert_customer(
    v_business, p->'customer'->>'first_name', p->'customer'->>'last_name', p->'customer'->>'phone',
    p->'customer'->>'phone_normalized', p->'customer'->>'email', (p->>'trusted')::boolean);

  <<candidates>>
  FOR v_candidate IN SELECT jsonb_array_elements_text(p->'candidates') LOOP
    -- Waits out a concurrent delete or deactivation; placements on one resource take turns, so the
    -- exclusion constraint never meets two uncommitted conflicting rows (which would deadlock).
    SELECT id, name, capacity_max, section INTO v_resource FROM resources
    WHERE id = v_candidate::uuid AND business_id = v_business AND deleted_at IS NULL AND is_active
    FOR NO KEY UPDATE;
    CONTINUE WHEN NOT FOUND;
    CONTINUE WHEN EXISTS (
      SELECT 1 FROM resource_blocks
      WHERE business_id = v_business AND resource_id = v_resource.id AND during && v_during);
    FOR v_code IN SELECT jsonb_array_elements_text(p->'codes') LOOP
      BEGIN
        INSERT INTO bookings (
          id, business_id, customer_id, resource_id, service_id, booking_date, start_time, end_time,
          duration_minutes, starts_at, ends_at, during, status, confirmation_code, capacity, source,
          customer_notes, guest_first_name, guest_last_name, guest_email, created_at, updated_at)
        VALUES (
          v_id, v_business, v_customer.id, v_resource.id, (p->>'service_id')::uuid,
          (p->>'booking_date')::date, (p->>'start_time')::time, (p->>'end_time')::time,
          (p->>'duration_minutes')::int, (p->>'starts_at')::timestamptz, (p->>'ends_at')::timestamptz,
          v_during, p->>'status', v_code, (p->>'capacity')::int, p->>'source', p->>'customer_notes',
          p->>'guest_first_name', p->>'guest_last_name', p->>'guest_email', v_created, v_created);
        v_placed := true;
        EXIT candidates;
      EXCEPTION
        WHEN exclusion_violation THEN CONTINUE candidates;
        -- Only the confirmation code can collide (the id is fresh): the next code is tried.
        WHEN unique_violation THEN NULL;
      END;
    END LOOP;
  END LOOP;
  IF NOT v_placed THEN
    RAISE EXCEPTION 'no resource is free for this slot any more' USING ERRCODE = 'SWB09';
  END IF;

  IF jsonb_typeof(p->'deposit') = 'object' THEN
    INSERT INTO deposits (
      business_id, booking_id, type, status, amount_cents, currency, processor, processor_payment_id,
      processor_setup_id, processor_checkout_id, processor_customer_id, processor_payment_method_id,
      checkout_url, expires_at, hold_due_at)
    SELECT v_business, v_id, d.type, d.status, d.amount_cents, d.currency, d.processor,
      d.processor_payment_id, d.processor_setup_id, d.processor_checkout_id, d.processor_customer_id,
      d.processor_payment_method_id, d.checkout_url, d.expires_at, d.hold_due_at
    FROM jsonb_populate_record(NULL::deposits, p->'deposit') d;
  END IF;

  -- The same fields bookings.view.ts `toBookingView` gives them.
  v_stamp := to_char(v_created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
  v_view := p->'view' || jsonb_build_object(
    'confirmation_code', v_code,
    'resource_id', v_resource.id,
    'resource', jsonb_build_object('id', v_resource.id, 'name', v_resource.name,
      'capacity_max', v_resource.capacity_max, 'section', v_resource.section),
    'customer_id', v_customer.id,
    'customer', jsonb_build_object('id', v_customer.id, 'first_name', v_customer.first_name,
      'last_name', v_customer.last_name, 'phone', v_customer.phone, 'email', v_customer.email),
    'created_at', v_stamp,
    'updated_at', v_stamp);

  INSERT INTO audit_logs (business_id, user_email, action, entity_type, entity_id, after_state)
  VALUES (v_business, p->>'actor', p->>'action', 'booking', v_id, v_view);
  PERFORM slotwise_emit_event(v_business, 'booking.created', v_view::json, v_id::text);

  -- Last, so the developer's row is held only for the moment before the commit.
  IF jsonb_typeof(p->'quota') = 'object' THEN
    INSERT INTO booking_usage AS u (developer_id, month, bookings)
    VALUES ((p->'quota'->>'developer_id')::uuid, (p->'quota'->>'month')::date, 1)
    ON CONFLICT (developer_id, month) DO UPDATE SET bookings = u.bookings + 1
      WHERE u.bookings < (p->'quota'->>'limit')::int;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'monthly booking quota reached' USING ERRCODE = 'SWQ02';
    END IF;
  END IF;
  RETURN v_view;
END $$;
