-- The business's open live streams hear of every change of its resource blocks (notify_live_event).
CREATE OR REPLACE TRIGGER resource_blocks_live AFTER INSERT OR UPDATE OR DELETE ON resource_blocks
  FOR EACH ROW EXECUTE FUNCTION notify_live_event();
