-- The business's open live streams hear of every change of its waitlist entries (notify_live_event).
CREATE OR REPLACE TRIGGER waitlist_entries_live AFTER INSERT OR UPDATE OR DELETE ON waitlist_entries
  FOR EACH ROW EXECUTE FUNCTION notify_live_event();
