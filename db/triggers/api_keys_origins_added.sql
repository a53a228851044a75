-- Processes cache which origins any key allows: a new key that brings origins is announced too.
CREATE OR REPLACE TRIGGER api_keys_origins_added AFTER INSERT ON api_keys
  FOR EACH ROW WHEN (NEW.allowed_origins <> '{}') EXECUTE FUNCTION slotwise_log_change('keys', 'business_id');
