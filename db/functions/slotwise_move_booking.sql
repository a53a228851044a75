-- Moves a booking to its new time, length and party on the first candidate set of resources (one
-- resource, or a combination's tables) all still active, unblocked and accepted by the exclusion
-- constraint of `booking_holds`, taking turns as a placement does; the tables it held before are
-- freed by the same UPDATE, which also writes `p.status` when given (a status that holds the
-- resources, changed with the move). A pending deposit's hold follows the new start. Answers the first
-- resource of the set it went to; raises SWB09 when none is
-- free any more (nothing is changed then). A booking that takes seats of a class (`p.class`) joins
-- the class at the new start, on the resource that class holds, or raises SWB13 when it is full
-- (slotwise_take_seats).
CREATE OR REPLACE FUNCTION slotwise_move_booking(p jsonb) RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  v_business uuid := (p->>'business_id')::uuid;
  v_id uuid := (p->>'booking_id')::uuid;
  v_during tstzrange := (p->>'during')::tstzrange;
  v_starts timestamptz := (p->>'starts_at')::timestamptz;
  v_updated timestamptz := coalesce((p->>'updated_at')::timestamptz, now());
  v_candidate jsonb;
  v_set uuid[];
  v_class_resource uuid;
  v_candidates jsonb := p->'candidates';
BEGIN
  PERFORM slotwise_require(p, ARRAY['business_id', 'booking_id', 'candidates', 'booking_date', 'start_time',
    'end_time', 'starts_at', 'ends_at', 'duration_minutes', 'during', 'capacity', 'hold_lead_ms'],
    'slotwise_move_booking');
  IF jsonb_typeof(p->'class') = 'object' THEN
    v_class_resource := slotwise_take_seats(v_business,
      (SELECT service_id FROM bookings WHERE id = v_id AND business_id = v_business), p->'class',
      (p->>'capacity')::int, v_id);
    IF v_class_resource IS NOT NULL THEN
      v_candidates := jsonb_build_array(jsonb_build_array(v_class_resource));
    END IF;
  END IF;
  FOR v_candidate IN SELECT jsonb_array_elements(v_candidates) LOOP
    v_set := ARRAY(SELECT jsonb_array_elements_text(v_candidate)::uuid);
    -- A subtransaction per try: a refused candidate gives its turn back at once.
    BEGIN
      PERFORM slotwise_take_turns(v_business, v_set, v_during, true);
      UPDATE bookings SET
        resource_id = v_set[1], joined_resource_ids = v_set[2:], booking_date = (p->>'booking_date')::date,
        start_time = (p->>'start_time')::time, end_time = (p->>'end_time')::time,
        starts_at = v_starts, ends_at = (p->>'ends_at')::timestamptz,
        duration_minutes = (p->>'duration_minutes')::int, during = v_during,
        capacity = (p->>'capacity')::int, status = coalesce(p->>'status', status), updated_at = v_updated
      WHERE id = v_id AND business_id = v_business;
      UPDATE deposits SET
        hold_due_at = v_starts - make_interval(secs => (p->>'hold_lead_ms')::bigint / 1000.0),
        updated_at = v_updated
      WHERE business_id = v_business AND booking_id = v_id AND status = 'requires_payment'
        AND hold_due_at IS NOT NULL;
      RETURN v_set[1];
    EXCEPTION
      WHEN exclusion_violation OR SQLSTATE 'SWB11' OR SQLSTATE 'SWB09' THEN NULL;
    END;
  END LOOP;
  RAISE EXCEPTION 'no resource is free for this slot any more' USING ERRCODE = 'SWB09';
END $$;
