-- The business's open live streams hear of every change of its waitlist entries (slotwise_log_live_event).
CREATE OR REPLACE TRIGGER waitlist_entries_live AFTER INSERT OR UPDATE OR DELETE ON waitlist_entries
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_live_event();
