
-- Counts one booking of the developer's month, below `p_limit` (the quota of the plan `p_plan`);
-- raises SWQ02 (the transaction's refusal) when the month's bookings are used up, its DETAIL
-- naming the plan and the limit. Exact under concurrency, and bookings of one
-- developer seldom wait for each other:
-- - A booking increments the first shard no other booking holds, looking from one picked at random
--   (it waits for that one only when all are held), which holds that row until it commits, then
--   reads the sum of all shards. At most 8 bookings are in flight at once (one per shard), so
--   while the sum seen, its own increment included, stays within the limit by 7 more (one for each
--   other shard), no combination of the bookings in flight can pass the limit.
-- - Closer to the limit, it gives back its increment and takes every shard in shard order: with
--   all of them held, the sum is exact and nobody else counts; the last unit goes to exactly one.
CREATE OR REPLACE FUNCTION slotwise_count_booking(p_developer uuid, p_month date, p_limit int, p_plan text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_start smallint := floor(random() * 8)::smallint;
  v_shard smallint;
  v_total bigint;
BEGIN
  -- Every shard exists before any is counted on, so taking them all holds off every other count.
  IF (SELECT count(*) FROM booking_usage WHERE developer_id = p_developer AND month = p_month) < 8 THEN
    INSERT INTO booking_usage (developer_id, month, shard, bookings)
    SELECT p_developer, p_month, n, 0 FROM generate_series(0, 7) AS n
    ON CONFLICT DO NOTHING;
  END IF;
  BEGIN
    -- A held shard is held until its booking commits, behind every commit before it: skipped.
    UPDATE booking_usage SET bookings = bookings + 1
    WHERE developer_id = p_developer AND month = p_month AND shard = (
      SELECT shard FROM booking_usage WHERE developer_id = p_developer AND month = p_month
      ORDER BY (shard - v_start + 8) % 8 LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING shard INTO v_shard;
    IF NOT FOUND THEN
      v_shard := v_start;
      UPDATE booking_usage SET bookings = bookings + 1
      WHERE developer_id = p_developer AND month = p_month AND shard = v_shard;
    END IF;
    SELECT sum(bookings) INTO v_total FROM booking_usage
    WHERE developer_id = p_developer AND month = p_month;
    IF v_total + 7 <= p_limit THEN
      RETURN;
    END IF;
    RAISE EXCEPTION 'near the monthly booking quota' USING ERRCODE = 'SWQ01';
  EXCEPTION WHEN SQLSTATE 'SWQ01' THEN
    NULL;
  END;
  PERFORM 1 FROM booking_usage WHERE developer_id = p_developer AND month = p_month
  ORDER BY shard FOR UPDATE;
  SELECT sum(bookings) INTO v_total FROM booking_usage
  WHERE developer_id = p_developer AND month = p_month;
  IF v_total >= p_limit THEN
    RAISE EXCEPTION 'monthly booking quota reached' USING ERRCODE = 'SWQ02',
      DETAIL = jsonb_build_object('plan', p_plan, 'limit', p_limit)::text;
  END IF;
  UPDATE booking_usage SET bookings = bookings + 1
  WHERE developer_id = p_developer AND month = p_month AND shard = v_shard;
END $$;
