-- The business's rules: what is bookable and when.
CREATE OR REPLACE TRIGGER blackout_dates_changed AFTER INSERT OR UPDATE OR DELETE ON blackout_dates
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_change('rules', 'business_id');
