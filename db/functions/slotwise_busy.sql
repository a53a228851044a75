-- What `[p_from, p_to)` holds of a business (availability.queries.ts `loadBusy` reads it): each
-- active booking overlapping it, with the tables it joins (NULL for the usual booking of one
-- table: no array for the driver to parse), its start and its party, and each external block
-- overlapping it (no party), and the service of the class a booking takes seats of (NULL for every
-- other booking: the engine tells a class's own bookings, which it may join, from the rest), bounds in epoch milliseconds (NULL where a block is unbounded). As
-- double precision (`date_part`), not numeric (`extract`): a month holds thousands of bookings,
-- and numeric costs the server more to compute and the driver more to read; instants on whole
-- seconds (every booking's, calendars' blocks) come out exact. One scan of each table's gist
-- index on business and held time. A function so that its plan is kept for the session: sent as
-- a statement of its own it was planned on every call, and named prepared statements do not
-- survive a transaction-pooling proxy. The generic plan is forced: estimated without the span it
-- looks dearer than a custom one, so it was never chosen, yet it is the same scan of the same
-- index. The statuses are asked of slotwise_status_holds, not handed in: inlined, it is the index's
-- own predicate, so that plan can use the index (`statements.test.ts` checks the plan).
CREATE OR REPLACE FUNCTION slotwise_busy(p_business uuid, p_from timestamptz, p_to timestamptz)
RETURNS TABLE (resource_id uuid, joined uuid[], start_ms double precision, end_ms double precision,
  party_size integer, starts_ms double precision, class_of uuid)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  SELECT b.resource_id, nullif(b.joined_resource_ids, '{}'), date_part('epoch', lower(b.during)) * 1000,
    date_part('epoch', upper(b.during)) * 1000, b.capacity, date_part('epoch', b.starts_at) * 1000,
    CASE WHEN b.class_seat THEN b.service_id END
  FROM bookings b
  WHERE b.business_id = p_business AND slotwise_status_holds(b.status)
    AND b.during && tstzrange(p_from, p_to)
  UNION ALL
  SELECT k.resource_id, NULL::uuid[], date_part('epoch', lower(k.during)) * 1000,
    date_part('epoch', upper(k.during)) * 1000, NULL::integer, NULL::double precision, NULL::uuid
  FROM resource_blocks k
  WHERE k.business_id = p_business AND k.during && tstzrange(p_from, p_to);
END $$;
