-- A staff change of a booking (PATCH: reschedule, resource move, party size, status) was a
-- transaction of up to ten statements: lock, read, the rules, the move, audit rows, read again,
-- events. It is now a read and one call of `slotwise_change_booking`, checked against the version
-- of the booking that was read.

-- Moves a booking to its new time and party on the first candidate resource that is still active,
-- unblocked and accepted by the exclusion constraint, taking turns as a placement does; a pending
-- deposit's hold follows the new start. Answers the resource it went to, or NULL when none is free
-- any more (nothing is changed then).
CREATE OR REPLACE FUNCTION slotwise_move_booking(p jsonb) RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  v_business uuid := (p->>'business_id')::uuid;
  v_id uuid := (p->>'booking_id')::uuid;
  v_during tstzrange := (p->>'during')::tstzrange;
  v_starts timestamptz := (p->>'starts_at')::timestamptz;
  v_updated timestamptz := coalesce((p->>'updated_at')::timestamptz, now());
  v_candidate text;
  v_resource uuid;
BEGIN
  <<candidates>>
  FOR v_candidate IN SELECT jsonb_array_elements_text(p->'candidates') LOOP
    -- A subtransaction per try: a refused candidate gives its turn back at once.
    BEGIN
      SELECT id INTO v_resource FROM slotwise_take_turn(v_business, v_candidate::uuid, v_during);
      CONTINUE candidates WHEN NOT FOUND;
      CONTINUE candidates WHEN EXISTS (
        SELECT 1 FROM resource_blocks
        WHERE business_id = v_business AND resource_id = v_resource AND during && v_during);
      UPDATE bookings SET
        resource_id = v_resource, booking_date = (p->>'booking_date')::date,
        start_time = (p->>'start_time')::time, end_time = (p->>'end_time')::time,
        starts_at = v_starts, ends_at = (p->>'ends_at')::timestamptz, during = v_during,
        capacity = (p->>'capacity')::int, updated_at = v_updated
      WHERE id = v_id AND business_id = v_business;
      UPDATE deposits SET
        hold_due_at = v_starts - make_interval(secs => (p->>'hold_lead_ms')::bigint / 1000.0),
        updated_at = v_updated
      WHERE business_id = v_business AND booking_id = v_id AND status = 'requires_payment'
        AND hold_due_at IS NOT NULL;
      RETURN v_resource;
    EXCEPTION
      WHEN exclusion_violation THEN CONTINUE candidates;
    END;
  END LOOP;
  RETURN NULL;
END $$;

-- Applies a staff change (`p`, built by bookings.service.ts `changeBooking` from the booking it
-- read) and answers the booking as the API shows it: `p.view` with the change and what only the
-- database decides (the resource, the time of the change) filled in. The change is made only on
-- the version that was read (`p.version`, the row's xmin); otherwise, or when the booking is gone,
-- it answers `{"stale": true}` and the caller reads again. A refusal is answered as
-- `{"refused": reason, ...}` before anything is written. In one call:
-- - `p.move`: a reschedule, to the first free candidate (`slotwise_move_booking`);
-- - `p.place`: a move to another resource or a new party size at the same time;
-- - `p.status`: a status move the caller has checked against the status it read;
-- - an audit row per change and the events `p.events`, each carrying the booking as the whole
--   change left it.
CREATE FUNCTION slotwise_change_booking(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_business uuid := (p->>'business_id')::uuid;
  v_id uuid := (p->>'booking_id')::uuid;
  v_actor text := p->>'actor';
  v_now timestamptz := date_trunc('milliseconds', now());
  v_before jsonb := p->'view';
  v_view jsonb;
  v_resource uuid := (p->'view'->>'resource_id')::uuid;
  v_capacity int := (p->'view'->>'capacity')::int;
  v_place jsonb := p->'place';
  v_turn record;
  v_limits record;
  v_allowed uuid[];
  v_type text;
BEGIN
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
    v_capacity := (p->'move'->>'capacity')::int;
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

  IF p->>'status' IS NOT NULL THEN
    UPDATE bookings SET status = p->>'status', updated_at = v_now
    WHERE id = v_id AND business_id = v_business;
  END IF;

  -- The same fields bookings.view.ts `toBookingView` gives them.
  v_view := v_before || coalesce(p->'move'->'view', '{}') || jsonb_build_object(
    'status', coalesce(p->>'status', v_before->>'status'),
    'capacity', v_capacity,
    'updated_at', to_char(v_now AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  IF v_resource <> (v_before->>'resource_id')::uuid THEN
    v_view := v_view || (
      SELECT jsonb_build_object('resource_id', r.id, 'resource', jsonb_build_object(
        'id', r.id, 'name', r.name, 'capacity_max', r.capacity_max, 'section', r.section))
      FROM resources r WHERE r.id = v_resource AND r.business_id = v_business);
  END IF;

  IF jsonb_typeof(p->'move') = 'object' THEN
    INSERT INTO audit_logs (business_id, user_email, action, entity_type, entity_id, before_state, after_state)
    VALUES (v_business, v_actor, 'booking.rescheduled', 'booking', v_id,
      jsonb_build_object('booking_date', v_before->'booking_date', 'start_time', v_before->'start_time',
        'resource_id', v_before->'resource_id', 'capacity', v_before->'capacity'),
      jsonb_build_object('booking_date', v_view->'booking_date', 'start_time', v_view->'start_time',
        'resource_id', v_view->'resource_id', 'capacity', v_view->'capacity'));
  END IF;
  INSERT INTO audit_logs (business_id, user_email, action, entity_type, entity_id, before_state, after_state)
  SELECT v_business, v_actor, change.action, 'booking', v_id,
    jsonb_build_object(change.field, v_before->change.field),
    jsonb_build_object(change.field, v_view->change.field)
  FROM (VALUES
    (1, 'booking.resource_moved', 'resource_id'),
    (2, 'booking.capacity_changed', 'capacity'),
    (3, 'booking.status_changed', 'status')) AS change (position, action, field)
  WHERE v_before->change.field IS DISTINCT FROM v_view->change.field
  ORDER BY change.position;

  FOR v_type IN SELECT jsonb_array_elements_text(p->'events') LOOP
    PERFORM slotwise_emit_event(v_business, v_type, v_view::json, v_id::text);
  END LOOP;
  RETURN v_view;
END $$;
