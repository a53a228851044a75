-- Applies a staff change (`p`, built by bookings.service.ts `changeBooking` from the booking it
-- read) and answers the booking as `booking_views` shows it then, with the UTC dates its held time
-- touches. A staff change is thus a read and this one call, not a transaction of up to ten
-- statements. The change is made only on the version that was read (`p.version`, the row's xmin);
-- otherwise, or when the booking is gone, it answers `{"stale": true}` and the caller reads again.
-- Refusals raise, so nothing of the change is left. In one call:
-- - `p.move`: a reschedule, to the first free candidate (`slotwise_move_booking`; SWB09 when none);
-- - `p.place`: a move to another resource or a new party size at the same time, which the caller
--   has checked against the business's rules; the resource must still be active (SWB11) and, when
--   it is another one, unblocked and free (SWB09); a combined booking placed on one resource frees
--   its other tables; a booking that takes seats of a class (`class_seat`) grows only into the
--   seats its service leaves (SWB13) and stays on the resource its class holds (SWB09);
-- - the `pacing` of either: the start's pacing, checked before the booking is placed
--   (slotwise_check_pacing: SWB12 when full; a staff override is noted in the audit row's meta);
-- - `p.status_refused`: a status move the status machine refused, raised as SWB10 only after the
--   placement's own refusal had its chance to answer;
-- - `p.status`: a status move the caller has checked against the status it read;
-- - `p.table_locked`: the staff keep the booking on its table, or let re-seating move it again;
-- - `p.give_unit_back`: the month's unit of a booking cancelled before its deposit was paid;
-- - an audit row per change and the events `p.events`, each carrying the booking as the whole
--   change left it: its customer, resource and deposit as they are when the change is made, since
--   the version checked covers the booking's own row only.
CREATE OR REPLACE FUNCTION slotwise_change_booking(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_business uuid := (p->>'business_id')::uuid;
  v_id uuid := (p->>'booking_id')::uuid;
  v_actor text := p->>'actor';
  v_now timestamptz := date_trunc('milliseconds', now());
  v_place jsonb := p->'place';
  v_resource uuid;
  v_before jsonb;
  v_view jsonb;
  v_held_dates jsonb;
  v_type text;
  v_change record;
  v_pacing jsonb;
  -- A new status that holds the booking's resources is written by the move's or the placement's
  -- own UPDATE: one row version and one change-log row, not two. A status that frees them
  -- (cancelled, no-show...) follows the placement, which answers its own refusal first.
  v_status_with_place text := CASE WHEN (p ? 'move' OR p ? 'place') AND slotwise_status_holds(p->>'status')
    THEN p->>'status' END;
BEGIN
  PERFORM slotwise_require(p, ARRAY['business_id', 'booking_id', 'version', 'actor', 'events'],
    'slotwise_change_booking');
  IF p ? 'place' THEN
    PERFORM slotwise_require(p->'place', ARRAY['resource_id', 'capacity', 'during'], 'slotwise_change_booking.place');
  END IF;

  PERFORM 1 FROM bookings
  WHERE id = v_id AND business_id = v_business AND xmin::text = p->>'version'
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('stale', true);
  END IF;
  -- The booking as the caller read it: its own row is that version.
  SELECT view INTO v_before FROM booking_views WHERE business_id = v_business AND id = v_id;

  v_pacing := slotwise_check_pacing(v_business, coalesce(p->'move'->'pacing', v_place->'pacing'),
    coalesce(p->'move'->>'capacity', v_place->>'capacity')::int, v_id);
  IF jsonb_typeof(p->'move') = 'object' THEN
    PERFORM slotwise_move_booking(p->'move' || jsonb_build_object(
      'business_id', v_business, 'booking_id', v_id, 'updated_at', v_now, 'status', v_status_with_place));
  ELSIF jsonb_typeof(v_place) = 'object' THEN
    v_resource := (v_place->>'resource_id')::uuid;
    IF coalesce(slotwise_take_seats(v_business, (v_before->>'service_id')::uuid, (
        SELECT jsonb_build_object('seats', s.seats, 'starts_at', v_before->'starts_at',
          'booking_date', v_before->'booking_date', 'start_time', v_before->'start_time')
        FROM bookings b JOIN services s ON s.business_id = b.business_id AND s.id = b.service_id
        WHERE b.business_id = v_business AND b.id = v_id AND b.class_seat AND s.seats IS NOT NULL),
        (v_place->>'capacity')::int, v_id), v_resource) <> v_resource THEN
      RAISE EXCEPTION 'no resource is free for this slot any more' USING ERRCODE = 'SWB09';
    END IF;
    -- A party size changed on its own resource is not refused for a block that came after it.
    PERFORM slotwise_take_turn(v_business, v_resource, (v_place->>'during')::tstzrange,
      v_resource <> (v_before->>'resource_id')::uuid);
    BEGIN
      UPDATE bookings SET resource_id = v_resource, joined_resource_ids = '{}', capacity = (v_place->>'capacity')::int,
        status = coalesce(v_status_with_place, status), updated_at = v_now
      WHERE id = v_id AND business_id = v_business;
    EXCEPTION
      WHEN exclusion_violation THEN
        RAISE EXCEPTION 'no resource is free for this slot any more' USING ERRCODE = 'SWB09';
    END;
  END IF;

  -- Only now, so that a refused placement is answered before a refused status move, as a
  -- placement's validation comes before the status machine; the placement made is rolled back.
  IF p->>'status_refused' IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'SWB10', MESSAGE = p->>'status_refused';
  END IF;

  IF p->>'status' IS NOT NULL AND v_status_with_place IS NULL THEN
    UPDATE bookings SET status = p->>'status', updated_at = v_now
    WHERE id = v_id AND business_id = v_business;
  END IF;
  IF p ? 'table_locked' THEN
    UPDATE bookings SET table_locked = (p->>'table_locked')::boolean, updated_at = v_now
    WHERE id = v_id AND business_id = v_business;
  END IF;
  IF (p->>'give_unit_back')::boolean THEN
    PERFORM slotwise_give_unit_back(v_business, v_id);
  END IF;

  SELECT view, held_dates INTO v_view, v_held_dates FROM booking_views
  WHERE business_id = v_business AND id = v_id;

  IF jsonb_typeof(p->'move') = 'object' THEN
    PERFORM slotwise_record_audit(v_business, v_actor, 'booking.rescheduled', 'booking', v_id,
      jsonb_build_object('booking_date', v_before->'booking_date', 'start_time', v_before->'start_time',
        'resource_id', v_before->'resource_id', 'capacity', v_before->'capacity'),
      jsonb_build_object('booking_date', v_view->'booking_date', 'start_time', v_view->'start_time',
        'resource_id', v_view->'resource_id', 'capacity', v_view->'capacity'), v_pacing);
  END IF;
  -- A loop: a function called in a sorted SELECT need not be called in its order, and the rows
  -- are numbered (`seq`) as they are written.
  FOR v_change IN
    SELECT change.action, change.field
    FROM (VALUES
      (1, 'booking.resource_moved', 'resource_id'),
      (2, 'booking.capacity_changed', 'capacity'),
      (3, 'booking.status_changed', 'status'),
      (4, 'booking.table_lock_changed', 'table_locked')) AS change (position, action, field)
    WHERE v_before->change.field IS DISTINCT FROM v_view->change.field
    ORDER BY change.position
  LOOP
    PERFORM slotwise_record_audit(v_business, v_actor, v_change.action, 'booking', v_id,
      jsonb_build_object(v_change.field, v_before->v_change.field),
      jsonb_build_object(v_change.field, v_view->v_change.field),
      CASE WHEN v_change.field = 'capacity' AND p->'move' IS NULL THEN v_pacing END);
  END LOOP;

  FOR v_type IN SELECT jsonb_array_elements_text(p->'events') LOOP
    PERFORM slotwise_emit_event(v_business, v_type, v_view::json, v_id::text, v_actor);
  END LOOP;
  RETURN jsonb_build_object('booking', v_view, 'held_dates', v_held_dates);
END $$;
