-- The business's open live streams hear of every change of its walk-in queue (slotwise_log_live_event).
CREATE OR REPLACE TRIGGER walk_ins_live AFTER INSERT OR UPDATE OR DELETE ON walk_ins
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_live_event();
