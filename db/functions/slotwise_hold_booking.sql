-- Keeps a booking's rows in `booking_holds` true to the booking (slotwise_booking_written): one row
-- per resource it holds (`resource_id`, then `joined_resource_ids`) for its `during`, while its
-- status is one that holds its resources (slotwise_status_holds), none otherwise. It runs
-- inside the statement that writes the booking, so the holds' exclusion constraint refuses that
-- very statement when a resource is taken; a terminal status frees every table at once. The holds of
-- a class's bookings (`class_seat`) share the key of the class (its service and held time), which the
-- constraint lets overlap; every other booking's holds are keyed by its own id.
CREATE OR REPLACE FUNCTION slotwise_hold_booking(tg_op text, old bookings, new bookings) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_holds boolean := slotwise_status_holds(NEW.status);
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.resource_id = OLD.resource_id AND NEW.joined_resource_ids = OLD.joined_resource_ids
      AND NEW.during = OLD.during AND NEW.class_seat = OLD.class_seat
      AND v_holds = slotwise_status_holds(OLD.status) THEN
      RETURN;
    END IF;
    -- Released before the new holds are written, so a booking moved onto its own time is no conflict.
    DELETE FROM booking_holds WHERE business_id = OLD.business_id AND booking_id = OLD.id;
  END IF;
  IF v_holds THEN
    INSERT INTO booking_holds (business_id, booking_id, resource_id, during, shared_by)
    SELECT NEW.business_id, NEW.id, held, NEW.during, CASE WHEN NEW.class_seat
      THEN md5(NEW.service_id::text || lower(NEW.during)::text)::uuid ELSE NEW.id END
    FROM unnest(NEW.resource_id || NEW.joined_resource_ids) AS held;
  END IF;
  RETURN;
END $$;
