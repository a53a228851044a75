-- Re-seating (docs/api-behaviour.md, "Re-seating"): a booking the staff lock to its table is never
-- moved to make room for another.
ALTER TABLE bookings ADD COLUMN table_locked boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN bookings.table_locked IS 'Staff keep the booking on its table: re-seating never moves it.';
