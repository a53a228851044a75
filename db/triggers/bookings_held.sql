-- The resources a booking holds, written by the booking's own statement (slotwise_hold_booking).
CREATE OR REPLACE TRIGGER bookings_held AFTER INSERT OR UPDATE OF resource_id, joined_resource_ids, during, status
  ON bookings FOR EACH ROW EXECUTE FUNCTION slotwise_hold_booking();
