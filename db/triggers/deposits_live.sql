-- The business's open live streams hear of every change of its deposits (notify_live_event).
CREATE OR REPLACE TRIGGER deposits_live AFTER INSERT OR UPDATE OR DELETE ON deposits
  FOR EACH ROW EXECUTE FUNCTION notify_live_event();
