-- A business's settings are rules of its own; a new business has nothing cached yet.
CREATE OR REPLACE TRIGGER businesses_changed AFTER UPDATE OR DELETE ON businesses
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_change('rules', 'id');
