-- Places a booking (`p`, built by bookings.service.ts `createBooking`) on the first candidate
-- set of resources (one resource, or the tables of a combination) whose resources are all still
-- active and free, with its customer, deposit, audit row, outbox event and
-- the month's count, and answers the booking as `booking_views` shows it with the UTC dates its
-- held time touches. Refusals raise, so nothing of the booking is left: SWQ02 when the developer's
-- monthly quota is used up, SWQ03 when a sandbox business's cap is, SWB12 when the start's pacing
-- is full (`p.pacing`, slotwise_check_pacing), SWB09 when no candidate is free,
-- SWB13 when the booking takes seats of a class (`p.class`, slotwise_take_seats) and they are taken;
-- a class already held somewhere is joined there, whatever the candidates. `p.reseat` moves other
-- bookings to other tables at their same times first, in its order, to make room (re-seating):
-- each must still await its guests (slotwise_status_unseated) on the table it is moved from, hold
-- that one table, start later than now and not be `table_locked`, and its new table must take it,
-- or nothing of the booking is made (SWB09); each move is audited as `booking.reseated`.
-- A booking is one round trip: the rules are checked by the application from its caches, and
-- everything the database must do to place it runs here, in one statement (one transaction when
-- called alone). The exclusion constraint of `booking_holds` stays the judge (the trigger
-- `bookings_written` writes a hold per resource inside the INSERT): a candidate set with a resource
-- taken meanwhile is skipped inside a subtransaction and the next one is tried.
CREATE OR REPLACE FUNCTION slotwise_place_booking(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_business uuid := (p->>'business_id')::uuid;
  v_id uuid := (p->>'id')::uuid;
  v_during tstzrange := (p->>'during')::tstzrange;
  v_created timestamptz := date_trunc('milliseconds', now());
  v_customer customers;
  v_code text;
  v_placed boolean := false;
  v_candidate jsonb;
  v_set uuid[];
  v_view jsonb;
  v_held_dates jsonb;
  v_pacing jsonb;
  v_class_resource uuid;
  v_candidates jsonb;
  v_move record;
  v_moved_before jsonb;
  v_moved_after jsonb;
BEGIN
  PERFORM slotwise_require(p, ARRAY['id', 'business_id', 'service_id', 'booking_date', 'start_time',
    'end_time', 'duration_minutes', 'starts_at', 'ends_at', 'during', 'status', 'capacity', 'source',
    'customer_notes', 'guest_first_name', 'guest_last_name', 'guest_email', 'customer', 'trusted',
    'candidates', 'codes', 'actor', 'action'], 'slotwise_place_booking');
  PERFORM slotwise_require(p->'customer',
    ARRAY['first_name', 'last_name', 'phone', 'phone_normalized', 'email'], 'slotwise_place_booking.customer');
  IF p ? 'deposit' THEN
    PERFORM slotwise_require(p->'deposit', ARRAY['type', 'status', 'amount_cents', 'currency', 'processor'],
      'slotwise_place_booking.deposit');
  END IF;
  IF p ? 'quota' THEN
    PERFORM slotwise_require(p->'quota', ARRAY['developer_id', 'month', 'limit', 'plan_id'],
      'slotwise_place_booking.quota');
  END IF;
  IF p ? 'sandbox_cap' THEN
    PERFORM slotwise_require(p->'sandbox_cap', ARRAY['month', 'cap'], 'slotwise_place_booking.sandbox_cap');
  END IF;

  -- A fast refusal; the count at the end is what holds under concurrency.
  IF jsonb_typeof(p->'quota') = 'object' AND (
    SELECT sum(bookings) FROM booking_usage
    WHERE developer_id = (p->'quota'->>'developer_id')::uuid AND month = (p->'quota'->>'month')::date
  ) >= (p->'quota'->>'limit')::int THEN
    RAISE EXCEPTION 'monthly booking quota reached' USING ERRCODE = 'SWQ02',
      DETAIL = jsonb_build_object('plan', p->'quota'->'plan_id', 'limit', p->'quota'->'limit')::text;
  END IF;

  SELECT * INTO v_customer FROM slotwise_upsert_customer(
    v_business, p->'customer'->>'first_name', p->'customer'->>'last_name', p->'customer'->>'phone',
    p->'customer'->>'phone_normalized', p->'customer'->>'email', (p->>'trusted')::boolean);

  v_pacing := slotwise_check_pacing(v_business, p->'pacing', (p->>'capacity')::int, NULL);
  v_class_resource := slotwise_take_seats(v_business, (p->>'service_id')::uuid, p->'class',
    (p->>'capacity')::int, NULL);
  v_candidates := CASE WHEN v_class_resource IS NULL THEN p->'candidates'
    ELSE jsonb_build_array(jsonb_build_array(v_class_resource)) END;
  FOR v_move IN
    SELECT (m.move->>'booking_id')::uuid AS booking_id, (m.move->>'from_resource')::uuid AS from_resource,
      (m.move->>'to_resource')::uuid AS to_resource, b.during
    FROM jsonb_array_elements(coalesce(p->'reseat', '[]')) WITH ORDINALITY AS m(move, position)
    LEFT JOIN bookings b ON b.business_id = v_business AND b.id = (m.move->>'booking_id')::uuid
    ORDER BY m.position
  LOOP
    SELECT view INTO v_moved_before FROM booking_views WHERE business_id = v_business AND id = v_move.booking_id;
    BEGIN
      PERFORM slotwise_take_turn(v_business, v_move.to_resource, v_move.during, true);
      UPDATE bookings b SET resource_id = v_move.to_resource, updated_at = v_created
      WHERE b.business_id = v_business AND b.id = v_move.booking_id AND b.resource_id = v_move.from_resource
        AND b.joined_resource_ids = '{}' AND NOT b.table_locked AND slotwise_status_unseated(b.status)
        AND b.starts_at > now() AND EXISTS (
          SELECT 1 FROM resources r WHERE r.business_id = v_business AND r.id = v_move.to_resource
            AND b.capacity BETWEEN r.capacity_min AND r.capacity_max);
      IF NOT FOUND THEN
        RAISE EXCEPTION 'no resource is free for this slot any more' USING ERRCODE = 'SWB09';
      END IF;
    EXCEPTION
      WHEN exclusion_violation OR SQLSTATE 'SWB11' THEN
        RAISE EXCEPTION 'no resource is free for this slot any more' USING ERRCODE = 'SWB09';
    END;
    SELECT view INTO v_moved_after FROM booking_views WHERE business_id = v_business AND id = v_move.booking_id;
    PERFORM slotwise_record_audit(v_business, p->>'actor', 'booking.reseated', 'booking', v_move.booking_id,
      jsonb_build_object('resource_id', v_moved_before->'resource_id'),
      jsonb_build_object('resource_id', v_moved_after->'resource_id'), jsonb_build_object('for_booking', v_id));
    PERFORM slotwise_emit_event(v_business, 'booking.updated', v_moved_after::json, v_move.booking_id::text);
  END LOOP;

  <<candidates>>
  FOR v_candidate IN SELECT jsonb_array_elements(v_candidates) LOOP
    v_set := ARRAY(SELECT jsonb_array_elements_text(v_candidate)::uuid);
    FOR v_code IN SELECT jsonb_array_elements_text(p->'codes') LOOP
      -- A subtransaction per try: a refused candidate gives its locks back at once.
      BEGIN
        PERFORM slotwise_take_turns(v_business, v_set, v_during, true);
        INSERT INTO bookings (
          id, business_id, customer_id, resource_id, joined_resource_ids, service_id, booking_date, start_time, end_time,
          duration_minutes, starts_at, ends_at, during, status, confirmation_code, capacity, source,
          customer_notes, guest_first_name, guest_last_name, guest_email, series_id, class_seat, partner_id,
          created_at, updated_at)
        VALUES (
          v_id, v_business, v_customer.id, v_set[1], v_set[2:], (p->>'service_id')::uuid,
          (p->>'booking_date')::date, (p->>'start_time')::time, (p->>'end_time')::time,
          (p->>'duration_minutes')::int, (p->>'starts_at')::timestamptz, (p->>'ends_at')::timestamptz,
          v_during, p->>'status', v_code, (p->>'capacity')::int, p->>'source', p->>'customer_notes',
          p->>'guest_first_name', p->>'guest_last_name', p->>'guest_email', (p->>'series_id')::uuid,
          coalesce(jsonb_typeof(p->'class') = 'object', false), (p->>'partner_id')::uuid, v_created, v_created);
        v_placed := true;
        EXIT candidates;
      EXCEPTION
        WHEN exclusion_violation OR SQLSTATE 'SWB11' OR SQLSTATE 'SWB09' THEN CONTINUE candidates;
        -- Only the confirmation code can collide (the id is fresh): the next code is tried.
        WHEN unique_violation THEN NULL;
      END;
    END LOOP;
  END LOOP;
  IF NOT v_placed THEN
    RAISE EXCEPTION 'no resource is free for this slot any more' USING ERRCODE = 'SWB09';
  END IF;

  -- The guest's own consent, ticked on the booking form: kept on the profile until withdrawn, the
  -- booking its proof.
  IF (p->>'marketing_opt_in')::boolean AND NOT v_customer.marketing_opt_in THEN
    UPDATE customers SET marketing_opt_in = true, updated_at = now()
    WHERE business_id = v_business AND id = v_customer.id;
    PERFORM slotwise_record_audit(v_business, p->>'actor', 'customer.marketing_opted_in', 'customer',
      v_customer.id, NULL, NULL, jsonb_build_object('booking_id', v_id));
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

  SELECT view, held_dates INTO v_view, v_held_dates FROM booking_views
  WHERE business_id = v_business AND id = v_id;
  PERFORM slotwise_record_audit(v_business, p->>'actor', p->>'action', 'booking', v_id, NULL, v_view, v_pacing);
  PERFORM slotwise_emit_event(v_business, 'booking.created', v_view::json, v_id::text);

  -- Last, so the month's row is held only for the moment before the commit.
  IF jsonb_typeof(p->'quota') = 'object' THEN
    PERFORM slotwise_count_booking((p->'quota'->>'developer_id')::uuid, (p->'quota'->>'month')::date,
      (p->'quota'->>'limit')::int, p->'quota'->>'plan_id');
  END IF;
  IF jsonb_typeof(p->'sandbox_cap') = 'object' THEN
    INSERT INTO sandbox_usage AS u (business_id, month, bookings)
    VALUES (v_business, (p->'sandbox_cap'->>'month')::date, 1)
    ON CONFLICT (business_id, month) DO UPDATE SET bookings = u.bookings + 1
    WHERE u.bookings < (p->'sandbox_cap'->>'cap')::int;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'monthly sandbox cap reached' USING ERRCODE = 'SWQ03',
        DETAIL = jsonb_build_object('cap', p->'sandbox_cap'->'cap')::text;
    END IF;
  END IF;
  RETURN jsonb_build_object('booking', v_view, 'held_dates', v_held_dates);
END $$;
