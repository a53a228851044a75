-- The reminder job reads the confirmed bookings starting within the next week (the longest
-- reminder), across businesses, on every run: by their start, not by business and date.
CREATE INDEX bookings_confirmed_starts_idx ON bookings (starts_at) WHERE status = 'confirmed';
