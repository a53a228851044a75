-- Guests manage their own booking by its confirmation code: until `cancellation_cutoff_hours`
-- before the start they may cancel it themselves (0: until it starts).
ALTER TABLE businesses
  ADD COLUMN cancellation_cutoff_hours integer NOT NULL DEFAULT 0 CHECK (cancellation_cutoff_hours BETWEEN 0 AND 720);

-- A guest's lookup names no business: the code alone finds the candidates.
CREATE INDEX bookings_confirmation_code_idx ON bookings (confirmation_code);
