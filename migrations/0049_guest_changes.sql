-- Guests change their own booking's time or party online until this many hours before it starts
-- (0: until it starts). Cancelling keeps its own cut-off, `cancellation_cutoff_hours`, which venues
-- set before changes existed: a shared one would have moved their cancellation windows.
ALTER TABLE businesses
  ADD COLUMN guest_change_cutoff_hours integer NOT NULL DEFAULT 2
    CHECK (guest_change_cutoff_hours BETWEEN 0 AND 720);
