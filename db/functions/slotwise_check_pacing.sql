-- Pacing of one start, the judge at the moment of a placement: refuses (SWB12) a party of
-- `p_capacity` starting at `p_pacing.starts_at` when the non-terminal bookings of the business
-- starting at that instant, the party with them, would pass `max_covers` guests or `max_bookings`
-- bookings. `p_booking` (a moved or resized booking) does not count against itself, and one that
-- keeps its start without growing is never refused (a party that shrinks is not re-checked). A staff
-- booking (`override`) passes a full start instead, and the answer `{"pacing_overridden": true}`
-- goes into its audit row's meta; otherwise the answer is NULL, as it is when `p_pacing` is NULL
-- (no period caps the start). Placements at one start take turns (an advisory lock per business and
-- instant, held to the end of the transaction), so each counts the ones before it: concurrent
-- bookings never pass the caps. The count finds the bookings holding the instant through the
-- existing gist indexes on business_id and `during` (no index of its own for every write to keep).
CREATE OR REPLACE FUNCTION slotwise_check_pacing(p_business uuid, p_pacing jsonb, p_capacity integer,
  p_booking uuid)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_starts timestamptz;
  v_max_covers integer;
  v_max_bookings integer;
  v_covers integer;
  v_bookings integer;
  v_cap text;
BEGIN
  IF jsonb_typeof(p_pacing) IS DISTINCT FROM 'object' THEN
    RETURN NULL;
  END IF;
  PERFORM slotwise_require(p_pacing, ARRAY['starts_at', 'booking_date', 'start_time', 'max_covers',
    'max_bookings', 'override'], 'slotwise_check_pacing');
  v_starts := (p_pacing->>'starts_at')::timestamptz;
  v_max_covers := (p_pacing->>'max_covers')::integer;
  v_max_bookings := (p_pacing->>'max_bookings')::integer;
  -- A booking that keeps its start and does not grow adds nothing to it, however full it is.
  IF EXISTS (
    SELECT 1 FROM bookings
    WHERE business_id = p_business AND id = p_booking AND starts_at = v_starts AND capacity >= p_capacity
      AND slotwise_status_holds(status)
  ) THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended(
    'pacing:' || p_business || ':' || (extract(epoch FROM v_starts) * 1000)::bigint, 0));
  SELECT coalesce(sum(capacity), 0), count(*) INTO v_covers, v_bookings
  FROM bookings
  WHERE business_id = p_business AND slotwise_status_holds(status)
    AND during @> v_starts AND starts_at = v_starts AND id IS DISTINCT FROM p_booking;
  v_cap := CASE
    WHEN v_covers + p_capacity > v_max_covers THEN 'covers'
    WHEN v_bookings + 1 > v_max_bookings THEN 'bookings'
  END;
  IF v_cap IS NULL THEN
    RETURN NULL;
  END IF;
  IF (p_pacing->>'override')::boolean THEN
    RETURN jsonb_build_object('pacing_overridden', true);
  END IF;
  RAISE EXCEPTION 'the pacing of this start is full' USING ERRCODE = 'SWB12',
    DETAIL = jsonb_build_object('booking_date', p_pacing->'booking_date', 'start_time', p_pacing->'start_time',
      'cap', v_cap, 'max', CASE v_cap WHEN 'covers' THEN v_max_covers ELSE v_max_bookings END,
      'covers', v_covers, 'bookings', v_bookings, 'party', p_capacity)::text;
END $$;
