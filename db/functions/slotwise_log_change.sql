-- Every committed change that can alter availability or a cached credential is announced in the
-- change log (`change_log.cache`) as `rules:<business id>` (settings, hours, blackouts, resources,
-- services), `busy:<business id>` (blocks) or `keys:<id>`: the trigger passes the prefix and the
-- column holding the id. Server processes read the log and drop what they cached for it.
-- Bookings announce their days themselves (slotwise_booking_written).
CREATE OR REPLACE FUNCTION slotwise_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed jsonb := CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(OLD) ELSE to_jsonb(NEW) END;
BEGIN
  INSERT INTO change_log (cache) VALUES (TG_ARGV[0] || ':' || (changed ->> TG_ARGV[1]));
  RETURN NULL;
END
$$;
