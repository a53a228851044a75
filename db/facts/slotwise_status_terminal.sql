-- Whether a booking status is terminal: no move leads out of it (the status machine of
-- src/bookings/status.rules.ts agrees, which a test checks), and a booking in it holds nothing, as the
-- contract has it: the non-terminal statuses are those that hold (slotwise_status_holds).
-- `npm run schema:generate` writes its answers into src/db.generated.ts (TERMINAL_STATUSES).
CREATE OR REPLACE FUNCTION slotwise_status_terminal(p_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT NOT slotwise_status_holds(p_status)
$$;
