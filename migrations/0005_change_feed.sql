-- Every committed change that can alter availability or a cached credential is announced on the
-- channel `slotwise_changes` as `rules:<business id>` (settings, hours, blackouts, resources,
-- services), `busy:<business id>` (bookings, blocks) or `keys:<id>`. Server processes listen and drop
-- what they cached for it. Notifications are sent at commit, once per distinct payload.
CREATE FUNCTION notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed jsonb := CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(OLD) ELSE to_jsonb(NEW) END;
BEGIN
  PERFORM pg_notify('slotwise_changes', TG_ARGV[0] || ':' || (changed ->> TG_ARGV[1]));
  RETURN NULL;
END
$$;

CREATE TRIGGER bookings_changed AFTER INSERT OR UPDATE OR DELETE ON bookings
  FOR EACH ROW EXECUTE FUNCTION notify_change('busy', 'business_id');
CREATE TRIGGER resources_changed AFTER INSERT OR UPDATE OR DELETE ON resources
  FOR EACH ROW EXECUTE FUNCTION notify_change('rules', 'business_id');
CREATE TRIGGER services_changed AFTER INSERT OR UPDATE OR DELETE ON services
  FOR EACH ROW EXECUTE FUNCTION notify_change('rules', 'business_id');
CREATE TRIGGER operating_hours_changed AFTER INSERT OR UPDATE OR DELETE ON operating_hours
  FOR EACH ROW EXECUTE FUNCTION notify_change('rules', 'business_id');
CREATE TRIGGER blackout_dates_changed AFTER INSERT OR UPDATE OR DELETE ON blackout_dates
  FOR EACH ROW EXECUTE FUNCTION notify_change('rules', 'business_id');
CREATE TRIGGER resource_blocks_changed AFTER INSERT OR UPDATE OR DELETE ON resource_blocks
  FOR EACH ROW EXECUTE FUNCTION notify_change('busy', 'business_id');
CREATE TRIGGER businesses_changed AFTER UPDATE OR DELETE ON businesses
  FOR EACH ROW EXECUTE FUNCTION notify_change('rules', 'id');
-- Only what a verified key carries: the `last_used_at` writes must not flush every cache.
CREATE TRIGGER api_keys_changed AFTER UPDATE OF is_active, scopes, rate_limit_per_minute, key_hash, business_id OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_change('keys', 'business_id');
CREATE TRIGGER developers_changed AFTER UPDATE OF subscription_status OR DELETE ON developers
  FOR EACH ROW EXECUTE FUNCTION notify_change('keys', 'id');
