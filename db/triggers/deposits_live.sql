-- The business's open live streams hear of every change of its deposits (slotwise_log_live_event).
CREATE OR REPLACE TRIGGER deposits_live AFTER INSERT OR UPDATE OR DELETE ON deposits
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_live_event();
