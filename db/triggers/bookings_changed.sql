-- Busy days of the business, per UTC date the booking's held time touches (notify_booking_change).
CREATE OR REPLACE TRIGGER bookings_changed AFTER INSERT OR UPDATE OR DELETE ON bookings
  FOR EACH ROW EXECUTE FUNCTION notify_booking_change();
