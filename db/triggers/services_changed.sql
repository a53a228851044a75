-- The business's rules: what is bookable and when.
CREATE OR REPLACE TRIGGER services_changed AFTER INSERT OR UPDATE OR DELETE ON services
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_change('rules', 'business_id');
