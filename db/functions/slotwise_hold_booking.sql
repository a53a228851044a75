-- Keeps a booking's rows in `booking_holds` true to the booking (slotwise_booking_written): the rows
-- slotwise_booking_holds gives it. It runs inside the statement that writes the booking, so the
-- holds' exclusion constraint refuses that very statement when a resource is taken; a terminal
-- status frees every table at once.
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
    SELECT * FROM slotwise_booking_holds(NEW);
  END IF;
  RETURN;
END $$;
