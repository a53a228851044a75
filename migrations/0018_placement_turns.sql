-- What a booking's profile showed (docs/benchmarks.md, "Where a booking's time goes"):
-- - Placements on one resource took turns at its row (`FOR NO KEY UPDATE`) until commit, so every
--   booking of a business's best-fitting table waited for the one before it, whatever its time: at
--   20 clients that wait was most of a booking's time in the database. They now take turns only
--   where their times can meet (per resource and UTC day), and lock the row in share mode, which
--   still holds off a concurrent deactivation or delete but no other placement.
-- - The outbox insert, a SQL function, was planned again at every call.
-- - A move or reschedule tried its candidates one round trip at a time; it is one statement now.
-- - Every booking announced a change of its whole business, so each process recomputed every
--   cached day of the business, the next booking's included. A booking now names the UTC dates its
--   held time touches, and only the days those can touch are recomputed.
-- - With those gone, every booking of a developer waited for the one before it at the developer's
--   one `booking_usage` row of the month. The month's count is now spread over rows of its own
--   (shards), and stays exact.

-- The UTC days a held time touches, in order.
CREATE FUNCTION slotwise_utc_days(p_held tstzrange) RETURNS SETOF date LANGUAGE sql IMMUTABLE AS $$
  SELECT day::date FROM generate_series(
    date_trunc('day', lower(p_held) AT TIME ZONE 'UTC'),
    date_trunc('day', upper(p_held) AT TIME ZONE 'UTC' - interval '1 microsecond'),
    interval '1 day') AS day
$$;

-- Takes the turn of placing a booking on a resource during `p_during`, and answers the resource
-- when it is still active and not deleted (nothing otherwise). The resource's row is locked in
-- share mode until the transaction ends, so it cannot be deactivated or deleted under the booking.
-- Two placements whose times can overlap take turns (an advisory lock per resource and UTC day the
-- time touches, in date order) so the exclusion constraint never meets two uncommitted
-- conflicting rows, where each would wait for the other until one is aborted as a deadlock.
-- Called inside a subtransaction, a refused try gives its turn back at once.
CREATE FUNCTION slotwise_take_turn(p_business uuid, p_resource uuid, p_during tstzrange)
RETURNS TABLE (id uuid, name text, capacity_min int, capacity_max int, section text)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY
    SELECT r.id, r.name, r.capacity_min, r.capacity_max, r.section FROM resources r
    WHERE r.id = p_resource AND r.business_id = p_business AND r.deleted_at IS NULL AND r.is_active
    FOR SHARE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('placement:' || p_resource || ':' || day, 0))
  FROM slotwise_utc_days(p_during) AS day
  ORDER BY day;
END $$;

-- The outbox insert as a PL/pgSQL function, whose plans are kept for the session (as a SQL
-- function it was a fifth of a booking's time in the database). What it does is unchanged: a
-- delivery per active endpoint subscribed to the event; nothing at all when no endpoint is.
CREATE OR REPLACE FUNCTION slotwise_emit_event(p_business uuid, p_type text, p_data json, p_subject text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_targets uuid[];
  v_event webhook_events;
BEGIN
  SELECT array_agg(id) INTO v_targets FROM webhook_endpoints
  WHERE business_id = p_business AND is_active AND events && ARRAY[p_type, '*'];
  IF v_targets IS NULL THEN
    RETURN;
  END IF;
  INSERT INTO webhook_events (business_id, type, data) VALUES (p_business, p_type, p_data)
  RETURNING * INTO v_event;
  INSERT INTO webhook_deliveries (business_id, endpoint_id, event_id, subject_key, next_attempt_at)
  SELECT p_business, target, v_event.id, p_subject, v_event.created_at FROM unnest(v_targets) AS target;
END $$;

-- A month's bookings of a developer are counted on eight rows (`shard` 0 to 7), created together
-- by the month's first booking; the month's count is their sum.
ALTER TABLE booking_usage ADD COLUMN shard smallint NOT NULL DEFAULT 0 CHECK (shard BETWEEN 0 AND 7);
ALTER TABLE booking_usage DROP CONSTRAINT booking_usage_pkey;
ALTER TABLE booking_usage ADD PRIMARY KEY (developer_id, month, shard);

-- Counts one booking of the developer's month, below `p_limit`; raises SWQ02 (the transaction's
-- refusal) when the month's bookings are used up. Exact under concurrency, and bookings of one
-- developer seldom wait for each other:
-- - A booking increments one shard picked at random, which holds that row until it commits, then
--   reads the sum of all shards. At most 8 bookings are in flight at once (one per shard), so
--   while the sum seen, its own increment included, stays within the limit by 7 more (one for each
--   other shard), no combination of the bookings in flight can pass the limit.
-- - Closer to the limit, it gives back its increment and takes every shard in shard order: with
--   all of them held, the sum is exact and nobody else counts; the last unit goes to exactly one.
CREATE FUNCTION slotwise_count_booking(p_developer uuid, p_month date, p_limit int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_shard smallint := floor(random() * 8)::smallint;
  v_total bigint;
BEGIN
  -- Every shard exists before any is counted on, so taking them all holds off every other count.
  IF (SELECT count(*) FROM booking_usage WHERE developer_id = p_developer AND month = p_month) < 8 THEN
    INSERT INTO booking_usage (developer_id, month, shard, bookings)
    SELECT p_developer, p_month, n, 0 FROM generate_series(0, 7) AS n
    ON CONFLICT DO NOTHING;
  END IF;
  BEGIN
    UPDATE booking_usage SET bookings = bookings + 1
    WHERE developer_id = p_developer AND month = p_month AND shard = v_shard;
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
    RAISE EXCEPTION 'monthly booking quota reached' USING ERRCODE = 'SWQ02';
  END IF;
  UPDATE booking_usage SET bookings = bookings + 1
  WHERE developer_id = p_developer AND month = p_month AND shard = v_shard;
END $$;

-- Places a booking (`p`, built by bookings.service.ts `placeBooking`) on the first candidate
-- resource that is still active and free, with its customer, deposit, audit row, outbox event and
-- the developer's monthly count, and answers the booking as the API shows it: `p.view` with what
-- only the database decides filled in. Refusals raise, so nothing of the booking is left:
-- SWQ02 when the monthly quota is used up, SWB09 when no candidate is free.
CREATE OR REPLACE FUNCTION slotwise_place_booking(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
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
  IF jsonb_typeof(p->'quota') = 'object' AND (
    SELECT sum(bookings) FROM booking_usage
    WHERE developer_id = (p->'quota'->>'developer_id')::uuid AND month = (p->'quota'->>'month')::date
  ) >= (p->'quota'->>'limit')::int THEN
    RAISE EXCEPTION 'monthly booking quota reached' USING ERRCODE = 'SWQ02';
  END IF;

  SELECT * INTO v_customer FROM slotwise_upsert_customer(
    v_business, p->'customer'->>'first_name', p->'customer'->>'last_name', p->'customer'->>'phone',
    p->'customer'->>'phone_normalized', p->'customer'->>'email', (p->>'trusted')::boolean);

  <<candidates>>
  FOR v_candidate IN SELECT jsonb_array_elements_text(p->'candidates') LOOP
    FOR v_code IN SELECT jsonb_array_elements_text(p->'codes') LOOP
      -- A subtransaction per try: a refused candidate gives its locks back at once.
      BEGIN
        SELECT id, name, capacity_max, section INTO v_resource
        FROM slotwise_take_turn(v_business, v_candidate::uuid, v_during);
        CONTINUE candidates WHEN NOT FOUND;
        CONTINUE candidates WHEN EXISTS (
          SELECT 1 FROM resource_blocks
          WHERE business_id = v_business AND resource_id = v_resource.id AND during && v_during);
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

  -- Last, so the developer's shard is held only for the moment before the commit.
  IF jsonb_typeof(p->'quota') = 'object' THEN
    PERFORM slotwise_count_booking((p->'quota'->>'developer_id')::uuid, (p->'quota'->>'month')::date,
      (p->'quota'->>'limit')::int);
  END IF;
  RETURN v_view;
END $$;

-- Moves a booking (`p`, built by bookings.service.ts `changeBooking`) to its new time and party on
-- the first candidate resource that is still active, unblocked and accepted by the exclusion
-- constraint, taking turns as a placement does; a deposit's hold follows the new start. Answers the
-- resource it went to; SWB09 when none is free any more. The caller's transaction holds the
-- booking's row and writes its audit rows and events.
CREATE FUNCTION slotwise_move_booking(p jsonb) RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  v_business uuid := (p->>'business_id')::uuid;
  v_id uuid := (p->>'booking_id')::uuid;
  v_during tstzrange := (p->>'during')::tstzrange;
  v_starts timestamptz := (p->>'starts_at')::timestamptz;
  v_candidate text;
  v_resource uuid;
BEGIN
  <<candidates>>
  FOR v_candidate IN SELECT jsonb_array_elements_text(p->'candidates') LOOP
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
        capacity = (p->>'capacity')::int, updated_at = now()
      WHERE id = v_id AND business_id = v_business;
      -- A pending deposit's hold is taken the same time before the new start.
      UPDATE deposits SET
        hold_due_at = v_starts - make_interval(secs => (p->>'hold_lead_ms')::bigint / 1000.0),
        updated_at = now()
      WHERE business_id = v_business AND booking_id = v_id AND status = 'requires_payment'
        AND hold_due_at IS NOT NULL;
      RETURN v_resource;
    EXCEPTION
      WHEN exclusion_violation THEN CONTINUE candidates;
    END;
  END LOOP;
  RAISE EXCEPTION 'no resource is free for this slot any more' USING ERRCODE = 'SWB09';
END $$;

-- A booking's change is announced as `busy:<business id>:<UTC date>` for every UTC date its held
-- time touches, before and after the change (change-feed.ts `dayVersion` maps them to days).
CREATE FUNCTION notify_booking_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_held tstzrange;
  v_day date;
BEGIN
  FOREACH v_held IN ARRAY CASE TG_OP
    WHEN 'INSERT' THEN ARRAY[NEW.during]
    WHEN 'DELETE' THEN ARRAY[OLD.during]
    ELSE ARRAY[OLD.during, NEW.during] END
  LOOP
    FOR v_day IN SELECT slotwise_utc_days(v_held) LOOP
      -- The same payload twice in one transaction is sent once.
      PERFORM pg_notify('slotwise_changes',
        'busy:' || CASE WHEN TG_OP = 'DELETE' THEN OLD.business_id ELSE NEW.business_id END
          || ':' || to_char(v_day, 'YYYY-MM-DD'));
    END LOOP;
  END LOOP;
  RETURN NULL;
END $$;

DROP TRIGGER bookings_changed ON bookings;
CREATE TRIGGER bookings_changed AFTER INSERT OR UPDATE OR DELETE ON bookings
  FOR EACH ROW EXECUTE FUNCTION notify_booking_change();
