-- Everything a written booking sets off, in the one trigger of `bookings` (`bookings_written`), so
-- a booking's statement runs one trigger, not four: its holds (slotwise_hold_booking), the room it
-- frees for the waitlist (slotwise_note_opening), and one row of the change log with what it
-- announces. `cache` names every UTC date its held time touches, before and after the change, as
-- `busy:<business id>:<date>[,<date>...]` (change-feed.ts `dayVersion` maps them to days); only
-- when something availability reads of it changed (`slotwise_busy`: status, held time, tables,
-- party, start; and its service), so a notes-only edit drops no cached day. `live` is its event
-- for the live stream, as slotwise_log_live_event writes those of other tables.
CREATE OR REPLACE FUNCTION slotwise_booking_written() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row bookings := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  v_days text;
  v_type text;
BEGIN
  IF TG_OP <> 'DELETE' THEN
    PERFORM slotwise_hold_booking(TG_OP, OLD, NEW);
  END IF;
  IF TG_OP = 'UPDATE' THEN
    PERFORM slotwise_note_opening(OLD, NEW);
  END IF;
  IF TG_OP <> 'UPDATE' OR (OLD.status, OLD.during, OLD.resource_id, OLD.joined_resource_ids, OLD.capacity,
      OLD.starts_at, OLD.service_id) IS DISTINCT FROM (NEW.status, NEW.during, NEW.resource_id,
      NEW.joined_resource_ids, NEW.capacity, NEW.starts_at, NEW.service_id) THEN
    SELECT string_agg(to_char(day, 'YYYY-MM-DD'), ',' ORDER BY day) INTO v_days FROM (
      SELECT slotwise_utc_days(OLD.during) AS day WHERE TG_OP <> 'INSERT'
      UNION SELECT slotwise_utc_days(NEW.during) WHERE TG_OP <> 'DELETE') AS touched;
  END IF;
  v_type := CASE
    WHEN TG_OP = 'INSERT' THEN 'booking.created'
    WHEN TG_OP = 'DELETE' THEN 'booking.deleted'
    WHEN NEW.status IS DISTINCT FROM OLD.status THEN 'booking.' || NEW.status
    WHEN (NEW.booking_date, NEW.start_time) IS DISTINCT FROM (OLD.booking_date, OLD.start_time)
      THEN 'booking.rescheduled'
    ELSE 'booking.updated' END;
  INSERT INTO change_log (cache, live) VALUES (
    'busy:' || v_row.business_id || ':' || v_days,
    concat_ws(':', v_row.business_id, v_type, v_row.id, v_row.booking_date, ''));
  RETURN NULL;
END $$;
