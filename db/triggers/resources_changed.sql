-- The business's rules: what is bookable and when.
CREATE OR REPLACE TRIGGER resources_changed AFTER INSERT OR UPDATE OR DELETE ON resources
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_change('rules', 'business_id');
