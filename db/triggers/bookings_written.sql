-- The one trigger of a booking's row (slotwise_booking_written): its holds, the waitlist's
-- openings and the change log, in the statement that writes it.
CREATE OR REPLACE TRIGGER bookings_written AFTER INSERT OR UPDATE OR DELETE ON bookings
  FOR EACH ROW EXECUTE FUNCTION slotwise_booking_written();
