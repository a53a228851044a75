-- The business's busy times: a block holds a resource as a booking does.
CREATE OR REPLACE TRIGGER resource_blocks_changed AFTER INSERT OR UPDATE OR DELETE ON resource_blocks
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_change('busy', 'business_id');
