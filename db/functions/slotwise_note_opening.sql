-- The one judge of a change that frees room for the waitlist (slotwise_booking_written): a
-- booking that held its time and is now cancelled or a no-show, or moved to another date, time or
-- table. When entries of the date it left wait for a booking, the date is queued as an opening,
-- in the transaction of the change, for the offers job to offer.
CREATE OR REPLACE FUNCTION slotwise_note_opening(old bookings, new bookings) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT slotwise_status_holds(OLD.status) THEN
    RETURN;
  END IF;
  IF NOT (NEW.status IN ('cancelled', 'no_show')
    OR (slotwise_status_holds(NEW.status)
      AND (NEW.during <> OLD.during OR NEW.resource_id <> OLD.resource_id
        OR NEW.joined_resource_ids <> OLD.joined_resource_ids))) THEN
    RETURN;
  END IF;
  IF EXISTS (
    SELECT 1 FROM waitlist_entries
    WHERE business_id = OLD.business_id AND preferred_date = OLD.booking_date AND booked_booking_id IS NULL
  ) THEN
    INSERT INTO waitlist_openings (business_id, booking_date) VALUES (OLD.business_id, OLD.booking_date);
  END IF;
  RETURN;
END $$;
