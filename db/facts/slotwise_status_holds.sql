-- The one list of which booking statuses hold their resources: a booking of one of these has its
-- rows in `booking_holds` (slotwise_hold_booking), is read as busy (slotwise_busy) and counts as
-- an arrival at its start for pacing (slotwise_check_pacing); the others are terminal
-- (slotwise_status_terminal). Every function, trigger, index and view asks it instead of listing
-- these statuses, and `npm run schema:generate` writes its answers into
-- src/db.generated.ts (HOLDING_STATUSES). One SQL expression, IMMUTABLE and not STRICT, so that
-- PostgreSQL inlines it into a query as into a partial index's predicate (`bookings_during_idx`):
-- a query's condition then matches the index's even in a generic plan. Changing the list takes a
-- migration that rebuilds what was built from it (the indexes on it, `booking_holds`).
CREATE OR REPLACE FUNCTION slotwise_status_holds(p_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_status IN ('pending', 'confirmed', 'checked_in')
$$;
