-- A verified key remembers its developer's subscription: any change to it must drop the key.
CREATE OR REPLACE TRIGGER developers_changed
  AFTER UPDATE OF subscription_status, subscription_plan_id, trial_ends_at, current_period_ends_at OR DELETE
  ON developers
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_change('keys', 'id');
