-- Takes the turn of placing a booking on a resource during `p_during`, and answers the resource
-- when it is still active and not deleted (nothing otherwise). The resource's row is locked in
-- share mode until the transaction ends, so it cannot be deactivated or deleted under the booking.
-- Two placements whose times can overlap take turns (an advisory lock per resource and UTC day the
-- time touches, in date order) so the exclusion constraint never meets two uncommitted
-- conflicting rows, where each would wait for the other until one is aborted as a deadlock.
-- Called inside a subtransaction, a refused try gives its turn back at once.
CREATE OR REPLACE FUNCTION slotwise_take_turn(p_business uuid, p_resource uuid, p_during tstzrange)
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
