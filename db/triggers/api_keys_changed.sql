-- Only what a verified key carries: the `last_used_at` writes must not flush every cache. Cached
-- verified keys carry their origins, and processes cache which origins any key allows: a change of
-- origins is announced like a revocation.
CREATE OR REPLACE TRIGGER api_keys_changed
  AFTER UPDATE OF is_active, scopes, rate_limit_per_minute, key_hash, business_id, allowed_origins OR DELETE
  ON api_keys
  FOR EACH ROW EXECUTE FUNCTION slotwise_log_change('keys', 'business_id');
