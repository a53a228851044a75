-- The busy periods' index is partial on the statuses that hold a resource, now asked of their one
-- definition (db/facts/slotwise_status_holds.sql, applied before the migrations) instead of named
-- here. PostgreSQL inlines the function into this predicate as into the queries of slotwise_busy and
-- slotwise_check_pacing, so their plans (generic ones included) still use the index.
DROP INDEX bookings_during_idx;
CREATE INDEX bookings_during_idx ON bookings USING gist (business_id, during)
  WHERE slotwise_status_holds(status);

COMMENT ON TABLE booking_holds IS 'One row per resource a booking holds while its status holds (slotwise_status_holds), kept by the trigger bookings_held; its exclusion constraint keeps the holds of a resource apart.';
