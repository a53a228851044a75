-- Takes the turn of placing a booking on a resource during `p_during`: the one judge, at the moment
-- of the placement, of whether the resource may take it. Raises SWB11 when the resource is no
-- longer active (or deleted) and, when `p_unblocked`, SWB09 when a block covers part of the time.
-- The resource's row is locked in share mode until the transaction ends, so it cannot be
-- deactivated or deleted under the booking. Two placements whose times can overlap take turns (an
-- advisory lock per resource and UTC day the time touches, in date order) so the exclusion
-- constraint never meets two uncommitted conflicting rows, where each would wait for the other
-- until one is aborted as a deadlock. Called inside a subtransaction, a refused try gives its turn
-- back at once.
CREATE OR REPLACE FUNCTION slotwise_take_turn(p_business uuid, p_resource uuid, p_during tstzrange,
  p_unblocked boolean)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM resources r
  WHERE r.id = p_resource AND r.business_id = p_business AND r.deleted_at IS NULL AND r.is_active
  FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'resource % is not an active resource of this business', p_resource
      USING ERRCODE = 'SWB11';
  END IF;
  IF p_unblocked AND EXISTS (
    SELECT 1 FROM resource_blocks
    WHERE business_id = p_business AND resource_id = p_resource AND during && p_during
  ) THEN
    RAISE EXCEPTION 'no resource is free for this slot any more' USING ERRCODE = 'SWB09';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('placement:' || p_resource || ':' || day, 0))
  FROM slotwise_utc_days(p_during) AS day
  ORDER BY day;
END $$;
