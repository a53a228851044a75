-- The business's rules: which parts of a day are bookable.
CREATE OR REPLACE TRIGGER service_periods_changed AFTER INSERT OR UPDATE OR DELETE ON service_periods
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_change('rules', 'business_id');
