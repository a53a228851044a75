-- Turn times: how long a party holds its table, by party size. A booking without a service lasts
-- the turn time of its party size, else default_slot_duration_minutes; the API checks the ranges.

ALTER TABLE businesses ADD COLUMN turn_times jsonb NOT NULL DEFAULT '[]'
  CONSTRAINT businesses_turn_times_array CHECK (jsonb_typeof(turn_times) = 'array');

COMMENT ON COLUMN businesses.turn_times IS 'Booking lengths by party size, [{min_party, max_party, duration_minutes}], ranges not overlapping, sorted by min_party; a party no range covers takes default_slot_duration_minutes.';
