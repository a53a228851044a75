-- The business's open live streams hear of every change of its bookings (notify_live_event).
CREATE OR REPLACE TRIGGER bookings_live AFTER INSERT OR UPDATE OR DELETE ON bookings
  FOR EACH ROW EXECUTE FUNCTION notify_live_event();
