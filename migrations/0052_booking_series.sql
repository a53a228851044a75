-- A staff series of bookings (docs/api-behaviour.md, "Recurring bookings"): each occurrence is a
-- booking of its own, and the series is the id they share.
ALTER TABLE bookings ADD COLUMN series_id uuid;
CREATE INDEX bookings_series_idx ON bookings (business_id, series_id, booking_date) WHERE series_id IS NOT NULL;
COMMENT ON COLUMN bookings.series_id IS 'The series a staff booking was placed in with its other occurrences; null for a booking of its own.';
