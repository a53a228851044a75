-- The business's rules: what is bookable and when.
CREATE OR REPLACE TRIGGER operating_hours_changed AFTER INSERT OR UPDATE OR DELETE ON operating_hours
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_change('rules', 'business_id');
