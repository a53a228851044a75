-- Pacing: how many guests and bookings may start at one grid time of a service period, across the
-- business, so the kitchen keeps up. Null means no cap. The booking statements enforce the caps
-- race-free (slotwise_check_pacing); staff bookings may pass them.

ALTER TABLE service_periods
  ADD COLUMN max_covers_per_slot integer
    CONSTRAINT service_periods_max_covers_per_slot_range CHECK (max_covers_per_slot BETWEEN 1 AND 1000),
  ADD COLUMN max_bookings_per_slot integer
    CONSTRAINT service_periods_max_bookings_per_slot_range CHECK (max_bookings_per_slot BETWEEN 1 AND 500);

COMMENT ON COLUMN service_periods.max_covers_per_slot IS 'The most guests (sum of party sizes) of non-terminal bookings that may start at one grid time of the period; null means no cap.';
COMMENT ON COLUMN service_periods.max_bookings_per_slot IS 'The most non-terminal bookings that may start at one grid time of the period; null means no cap.';
