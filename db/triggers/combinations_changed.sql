-- The business's rules: which resources are joined for larger parties.
CREATE OR REPLACE TRIGGER combinations_changed AFTER INSERT OR UPDATE OR DELETE ON combinations
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_change('rules', 'business_id');
