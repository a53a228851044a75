-- Every committed change that can alter availability or a cached credential is announced on the
-- channel `slotwise_changes` as `rules:<business id>` (settings, hours, blackouts, resources,
-- services), `busy:<business id>` (blocks) or `keys:<id>`: the trigger passes the prefix and the
-- column holding the id. Server processes listen and drop what they cached for it. Notifications
-- are sent at commit, once per distinct payload.
CREATE OR REPLACE FUNCTION notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed jsonb := CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(OLD) ELSE to_jsonb(NEW) END;
BEGIN
  PERFORM pg_notify('slotwise_changes', TG_ARGV[0] || ':' || (changed ->> TG_ARGV[1]));
  RETURN NULL;
END
$$;
