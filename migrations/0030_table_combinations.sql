-- Table combinations: tables a restaurant joins for a larger party (4 + 5 seat ten). A booking on a
-- combination holds every table of it, so what one resource holds is no longer the booking's own
-- row: `booking_holds` has one row per resource an active booking holds, and the exclusion
-- constraint that keeps a resource's bookings apart moves onto it.

-- No booking is written between the copy of the holds below and the move of the constraint.
LOCK TABLE bookings IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE combinations (
  business_id uuid NOT NULL REFERENCES businesses (id),
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 60),
  resource_ids uuid[] NOT NULL CHECK (cardinality(resource_ids) BETWEEN 2 AND 6),
  capacity_min integer NOT NULL CHECK (capacity_min BETWEEN 1 AND 50),
  capacity_max integer NOT NULL CHECK (capacity_max BETWEEN 1 AND 50),
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  CHECK (capacity_min <= capacity_max)
);

COMMENT ON TABLE combinations IS 'Resources joined for one larger party; offered only while all its resources are active and live.';
COMMENT ON COLUMN combinations.resource_ids IS 'The joined resources, distinct; the first is the one a booking on it shows as resource_id.';

ALTER TABLE bookings ADD COLUMN joined_resource_ids uuid[] NOT NULL DEFAULT '{}';
COMMENT ON COLUMN bookings.joined_resource_ids IS 'The resources a booking on a combination holds besides resource_id; empty for one resource.';

CREATE TABLE booking_holds (
  business_id uuid NOT NULL,
  booking_id uuid NOT NULL,
  resource_id uuid NOT NULL,
  during tstzrange NOT NULL,
  PRIMARY KEY (business_id, booking_id, resource_id),
  FOREIGN KEY (business_id, booking_id) REFERENCES bookings (business_id, id) ON DELETE CASCADE,
  FOREIGN KEY (business_id, resource_id) REFERENCES resources (business_id, id),
  CONSTRAINT booking_holds_no_overlap EXCLUDE USING gist (business_id WITH =, resource_id WITH =, during WITH &&)
);

COMMENT ON TABLE booking_holds IS 'One row per resource an active (pending, confirmed, checked_in) booking holds, kept by the trigger bookings_held; its exclusion constraint keeps the holds of a resource apart.';

INSERT INTO booking_holds (business_id, booking_id, resource_id, during)
SELECT b.business_id, b.id, b.resource_id, b.during
FROM bookings b
WHERE b.status IN ('pending', 'confirmed', 'checked_in');

-- The holds carry the constraint now: one gist constraint per booking write, not two.
ALTER TABLE bookings DROP CONSTRAINT bookings_no_overlap;
