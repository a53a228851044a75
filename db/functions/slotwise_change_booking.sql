-- Applies a staff change (`p`, built by bookings.service.ts `changeBooking` from the booking it
-- read) and answers the booking as the API shows it: `p.view` with the change and what only the
-- database decides filled in. A staff change is thus a read and this one call, not a transaction
-- of up to ten statements. The change is made only on the version that was read (`p.version`, the
-- row's xmin); otherwise, or when the booking is gone, it answers `{"stale": true}` and the caller
-- reads again. A refusal is answered as `{"refused": reason, ...}` before anything is written. In
-- one call:
-- - `p.move`: a reschedule, to the first free candidate (`slotwise_move_booking`);
-- - `p.place`: a move to another resource or a new party size at the same time;
-- - `p.status_refused`: a status move the status machine refused, raised as SWB10 only after the
--   placement's own refusal (slot taken, resource refused, party size) had its chance to answer;
-- - `p.status`: a status move the caller has checked against the status it read;
-- - an audit row per change and the events `p.events`, each carrying the booking as the whole
--   change left it: its customer, resource and deposit as they are when the change is made, since
--   the version checked covers the booking's own row only.
CREATE OR REPLACE FUNCTION slotwise_change_booking(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_business uuid := (p->>'business_id')::uuid;
  v_id uuid := (p->>'booking_id')::uuid;
  v_actor text := p->>'actor';
  v_now timestamptz := date_trunc('milliseconds', now());
  v_before jsonb := p->'view';
  v_view jsonb;
  v_resource uuid;
  v_capacity int;
  v_place jsonb := p->'place';
  v_turn record;
  v_limits record;
  v_allowed uuid[];
  v_type text;
  v_change record;
BEGIN
  PERFORM slotwise_require(p, ARRAY['business_id', 'booking_id', 'version', 'view', 'actor', 'events'],
    'slotwise_change_booking');
  -- The fields of the booking as it was read that are compared and audited here.
  PERFORM slotwise_require(p->'view',
    ARRAY['status', 'capacity', 'resource_id', 'service_id', 'booking_date', 'start_time'],
    'slotwise_change_booking.view');
  IF p ? 'move' THEN
    PERFORM slotwise_require(p->'move', ARRAY['view'], 'slotwise_change_booking.move');
  END IF;
  IF p ? 'place' THEN
    PERFORM slotwise_require(p->'place', ARRAY['resource_id', 'capacity', 'during'], 'slotwise_change_booking.place');
  END IF;

  PERFORM 1 FROM bookings
  WHERE id = v_id AND business_id = v_business AND xmin::text = p->>'version'
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('stale', true);
  END IF;

  IF jsonb_typeof(p->'move') = 'object' THEN
    v_resource := slotwise_move_booking(p->'move' || jsonb_build_object(
      'business_id', v_business, 'booking_id', v_id, 'updated_at', v_now));
    IF v_resource IS NULL THEN
      RETURN jsonb_build_object('refused', 'slot_taken');
    END IF;
  ELSIF jsonb_typeof(v_place) = 'object' THEN
    v_resource := (v_place->>'resource_id')::uuid;
    v_capacity := (v_place->>'capacity')::int;
    IF v_capacity <> (v_before->>'capacity')::int THEN
      SELECT min_capacity, max_capacity INTO v_limits FROM businesses WHERE id = v_business;
      IF v_capacity NOT BETWEEN v_limits.min_capacity AND v_limits.max_capacity THEN
        RETURN jsonb_build_object('refused', 'party_size',
          'min', v_limits.min_capacity, 'max', v_limits.max_capacity);
      END IF;
    END IF;
    SELECT * INTO v_turn FROM slotwise_take_turn(v_business, v_resource, (v_place->>'during')::tstzrange);
    IF NOT FOUND THEN
      RETURN jsonb_build_object('refused', 'resource_inactive');
    END IF;
    IF v_resource <> (v_before->>'resource_id')::uuid THEN
      -- A booking made for a service stays on resources that perform it.
      SELECT resource_ids INTO v_allowed FROM services
      WHERE id = (v_before->>'service_id')::uuid AND business_id = v_business;
      IF cardinality(v_allowed) > 0 AND NOT v_resource = ANY (v_allowed) THEN
        RETURN jsonb_build_object('refused', 'not_performed');
      END IF;
    END IF;
    IF v_capacity NOT BETWEEN v_turn.capacity_min AND v_turn.capacity_max THEN
      RETURN jsonb_build_object('refused', 'resource_fit',
        'min', v_turn.capacity_min, 'max', v_turn.capacity_max);
    END IF;
    IF v_resource <> (v_before->>'resource_id')::uuid AND EXISTS (
      SELECT 1 FROM resource_blocks
      WHERE business_id = v_business AND resource_id = v_resource
        AND during && (v_place->>'during')::tstzrange
    ) THEN
      RETURN jsonb_build_object('refused', 'slot_taken');
    END IF;
    BEGIN
      UPDATE bookings SET resource_id = v_resource, capacity = v_capacity, updated_at = v_now
      WHERE id = v_id AND business_id = v_business;
    EXCEPTION
      WHEN exclusion_violation THEN
        RETURN jsonb_build_object('refused', 'slot_taken');
    END;
  END IF;

  -- Only now, so that a refused placement is answered before a refused status move, as a
  -- placement's validation comes before the status machine; the placement made is rolled back.
  IF p->>'status_refused' IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'SWB10', MESSAGE = p->>'status_refused';
  END IF;

  IF p->>'status' IS NOT NULL THEN
    UPDATE bookings SET status = p->>'status', updated_at = v_now
    WHERE id = v_id AND business_id = v_business;
  END IF;

  -- The same fields bookings.view.ts `toBookingView` gives them. The version checked covers the
  -- booking's own row only: its customer, resource and deposit are read as they are now, since
  -- another request may have changed them after the booking was read.
  v_view := v_before || coalesce(p->'move'->'view', '{}') || (
    SELECT jsonb_build_object(
      'status', b.status,
      'capacity', b.capacity,
      'resource_id', r.id,
      'resource', jsonb_build_object(
        'id', r.id, 'name', r.name, 'capacity_max', r.capacity_max, 'section', r.section),
      'customer', jsonb_build_object('id', c.id, 'first_name', c.first_name,
        'last_name', c.last_name, 'phone', c.phone, 'email', c.email),
      'deposit', CASE WHEN d.status IS NOT NULL AND d.type IS NOT NULL AND d.amount_cents IS NOT NULL
        THEN jsonb_build_object('status', d.status, 'type', d.type,
          'amount_cents', d.amount_cents, 'processor_payment_id', d.processor_payment_id) END,
      'updated_at', to_char(b.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    FROM bookings b
    JOIN customers c ON c.business_id = b.business_id AND c.id = b.customer_id
    JOIN resources r ON r.business_id = b.business_id AND r.id = b.resource_id
    LEFT JOIN deposits d ON d.business_id = b.business_id AND d.booking_id = b.id
    WHERE b.id = v_id AND b.business_id = v_business);

  IF jsonb_typeof(p->'move') = 'object' THEN
    PERFORM slotwise_record_audit(v_business, v_actor, 'booking.rescheduled', 'booking', v_id,
      jsonb_build_object('booking_date', v_before->'booking_date', 'start_time', v_before->'start_time',
        'resource_id', v_before->'resource_id', 'capacity', v_before->'capacity'),
      jsonb_build_object('booking_date', v_view->'booking_date', 'start_time', v_view->'start_time',
        'resource_id', v_view->'resource_id', 'capacity', v_view->'capacity'), NULL);
  END IF;
  -- A loop: a function called in a sorted SELECT need not be called in its order, and the rows
  -- are numbered (`seq`) as they are written.
  FOR v_change IN
    SELECT change.action, change.field
    FROM (VALUES
      (1, 'booking.resource_moved', 'resource_id'),
      (2, 'booking.capacity_changed', 'capacity'),
      (3, 'booking.status_changed', 'status')) AS change (position, action, field)
    WHERE v_before->change.field IS DISTINCT FROM v_view->change.field
    ORDER BY change.position
  LOOP
    PERFORM slotwise_record_audit(v_business, v_actor, v_change.action, 'booking', v_id,
      jsonb_build_object(v_change.field, v_before->v_change.field),
      jsonb_build_object(v_change.field, v_view->v_change.field), NULL);
  END LOOP;

  FOR v_type IN SELECT jsonb_array_elements_text(p->'events') LOOP
    PERFORM slotwise_emit_event(v_business, v_type, v_view::json, v_id::text);
  END LOOP;
  RETURN v_view;
END $$;
