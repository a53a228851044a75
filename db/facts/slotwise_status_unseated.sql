-- The one list of which booking statuses await their guests: the booking holds its resources
-- (slotwise_status_holds) and nobody sits at them yet, so re-seating may move it to another table
-- (slotwise_place_booking). `npm run schema:generate` writes its answers into
-- src/engine/status-facts.generated.ts (UNSEATED_STATUSES).
CREATE OR REPLACE FUNCTION slotwise_status_unseated(p_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT slotwise_status_holds(p_status) AND p_status <> 'checked_in'
$$;
