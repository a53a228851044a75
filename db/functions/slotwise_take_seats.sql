-- Seats of a class, the judge at the moment of a placement: a party of `p_capacity` joins the class
-- of service `p_service` starting at `p_class.starts_at` when the seats its other bookings that
-- hold (slotwise_status_holds) take leave room for it, and SWB13 is raised otherwise (DETAIL: the
-- start, the seats and the seats left). Answers the resource the class already holds, which the
-- booking must join, or NULL when it is the class's first booking and may take any free candidate.
-- `p_booking` (a moved or resized booking) does not count against itself. Placements into one
-- class take turns (an advisory lock per service and start, held to the end of the transaction), so
-- each counts the seats of the ones before it, and only one can start the class on a resource.
CREATE OR REPLACE FUNCTION slotwise_take_seats(p_business uuid, p_service uuid, p_class jsonb,
  p_capacity integer, p_booking uuid)
RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  v_starts timestamptz;
  v_seats integer;
  v_taken integer;
  v_resource uuid;
BEGIN
  IF jsonb_typeof(p_class) IS DISTINCT FROM 'object' THEN
    RETURN NULL;
  END IF;
  PERFORM slotwise_require(p_class, ARRAY['seats', 'starts_at', 'booking_date', 'start_time'],
    'slotwise_take_seats');
  v_starts := (p_class->>'starts_at')::timestamptz;
  v_seats := (p_class->>'seats')::integer;
  PERFORM pg_advisory_xact_lock(hashtextextended(
    'class:' || p_service || ':' || (extract(epoch FROM v_starts) * 1000)::bigint, 0));
  SELECT coalesce(sum(b.capacity), 0), min(b.resource_id::text)::uuid INTO v_taken, v_resource
  FROM bookings b
  WHERE b.business_id = p_business AND b.service_id = p_service AND b.starts_at = v_starts
    AND b.during @> v_starts
    AND b.class_seat AND slotwise_status_holds(b.status) AND b.id IS DISTINCT FROM p_booking;
  IF v_taken + p_capacity > v_seats THEN
    RAISE EXCEPTION 'the class is full' USING ERRCODE = 'SWB13',
      DETAIL = jsonb_build_object('booking_date', p_class->'booking_date', 'start_time', p_class->'start_time',
        'seats', v_seats, 'seats_left', greatest(v_seats - v_taken, 0), 'party', p_capacity)::text;
  END IF;
  RETURN v_resource;
END $$;
