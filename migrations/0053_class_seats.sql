-- Classes with seats (docs/api-behaviour.md, "Classes with seats"): the bookings of one class (a
-- service with `seats`, at one start) share the one resource the class holds. Each keeps its own
-- hold, and the holds of one class are told apart from every other booking by the key they share,
-- so the exclusion constraint lets them overlap each other and nothing else.

-- No booking is written between the copy of the keys below and the move of the constraint.
LOCK TABLE bookings IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE services ADD COLUMN seats integer CHECK (seats BETWEEN 2 AND 500);
COMMENT ON COLUMN services.seats IS 'A class: the seats one start of it has, its bookings sharing one resource; null for a service each booking holds a resource of alone.';

ALTER TABLE bookings ADD COLUMN class_seat boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN bookings.class_seat IS 'The booking takes seats (its capacity) of a class: its service and start make the class, whose bookings share one resource.';

ALTER TABLE booking_holds ADD COLUMN shared_by uuid;
UPDATE booking_holds SET shared_by = booking_id;
ALTER TABLE booking_holds ALTER COLUMN shared_by SET NOT NULL;
COMMENT ON COLUMN booking_holds.shared_by IS 'The holds that may overlap on one resource share this key: a class''s bookings (of its service and held time), else the booking''s own id.';

ALTER TABLE booking_holds DROP CONSTRAINT booking_holds_no_overlap;
ALTER TABLE booking_holds ADD CONSTRAINT booking_holds_no_overlap
  EXCLUDE USING gist (business_id WITH =, resource_id WITH =, during WITH &&, shared_by WITH <>);

-- slotwise_busy answers the class a booking takes seats of: a new row type.
DROP FUNCTION IF EXISTS slotwise_busy(uuid, timestamptz, timestamptz);
