-- The business's rules: which resources are joined for larger parties.
CREATE OR REPLACE TRIGGER combinations_changed AFTER INSERT OR UPDATE OR DELETE ON combinations
  FOR EACH ROW EXECUTE FUNCTION notify_change('rules', 'business_id');
