-- The rows a booking holds in `booking_holds`, the one statement of them: one per resource it
-- holds (`resource_id`, then `joined_resource_ids`) for its `during`, while its status is one that
-- holds its resources (slotwise_status_holds), none otherwise. The holds of a class's bookings
-- (`class_seat`) share the key of the class (its service and held time), which the exclusion
-- constraint lets overlap; every other booking's holds are keyed by its own id. A set of rows, not
-- a write, so that the trigger of one booking (slotwise_hold_booking) and a seed writing many
-- bookings in one statement (bench/seed.ts) insert the same rows. STABLE, not
-- IMMUTABLE: the class's key reads a timestamp as text, which follows the session's time zone.
CREATE OR REPLACE FUNCTION slotwise_booking_holds(b bookings)
RETURNS TABLE (business_id uuid, booking_id uuid, resource_id uuid, during tstzrange, shared_by uuid)
LANGUAGE sql STABLE AS $$
  SELECT b.business_id, b.id, held, b.during, CASE WHEN b.class_seat
    THEN md5(b.service_id::text || lower(b.during)::text)::uuid ELSE b.id END
  FROM unnest(b.resource_id || b.joined_resource_ids) AS held
  WHERE slotwise_status_holds(b.status)
$$;
