-- The business's open live streams hear of every change of its resource blocks (slotwise_log_live_event).
CREATE OR REPLACE TRIGGER resource_blocks_live AFTER INSERT OR UPDATE OR DELETE ON resource_blocks
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_live_event();
