-- A booking's change is announced as `busy:<business id>:<UTC date>` for every UTC date its held
-- time touches, before and after the change (change-feed.ts `dayVersion` maps them to days).
CREATE OR REPLACE FUNCTION notify_booking_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_held tstzrange;
  v_day date;
BEGIN
  FOREACH v_held IN ARRAY CASE TG_OP
    WHEN 'INSERT' THEN ARRAY[NEW.during]
    WHEN 'DELETE' THEN ARRAY[OLD.during]
    ELSE ARRAY[OLD.during, NEW.during] END
  LOOP
    FOR v_day IN SELECT slotwise_utc_days(v_held) LOOP
      -- The same payload twice in one transaction is sent once.
      PERFORM pg_notify('slotwise_changes',
        'busy:' || CASE WHEN TG_OP = 'DELETE' THEN OLD.business_id ELSE NEW.business_id END
          || ':' || to_char(v_day, 'YYYY-MM-DD'));
    END LOOP;
  END LOOP;
  RETURN NULL;
END $$;
