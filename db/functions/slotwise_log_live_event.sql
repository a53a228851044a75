-- What the live stream (GET /v1/manage/stream) shows of a committed change of a business's
-- deposits, waitlist entries, walk-in queue and blocks, written to the change log (`change_log.live`) as
-- `<business id>:<type>:<id>:<date or empty>:<booking id or empty>` (live-events.ts reads it).
-- Types and ids only, never guest data; any row change counts. The row is read as jsonb so that a
-- column a later migration adds (a waitlist entry's status) names its event without this function
-- changing. Bookings write their events themselves (slotwise_booking_written).
CREATE OR REPLACE FUNCTION slotwise_log_live_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_row jsonb := CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(OLD) ELSE to_jsonb(NEW) END;
  v_old jsonb := CASE WHEN TG_OP = 'UPDATE' THEN to_jsonb(OLD) END;
  v_status_moved boolean := TG_OP = 'UPDATE' AND (v_row ->> 'status') IS DISTINCT FROM (v_old ->> 'status');
  v_type text;
  v_date text;
BEGIN
  IF TG_TABLE_NAME = 'deposits' THEN
    v_type := CASE TG_OP WHEN 'INSERT' THEN 'deposit.created' WHEN 'DELETE' THEN 'deposit.deleted'
      ELSE 'deposit.updated' END;
  ELSIF TG_TABLE_NAME = 'waitlist_entries' THEN
    v_date := v_row ->> 'preferred_date';
    v_type := CASE
      WHEN TG_OP = 'INSERT' THEN 'waitlist.created'
      WHEN TG_OP = 'DELETE' THEN 'waitlist.removed'
      WHEN v_status_moved AND v_row ->> 'status' IS NOT NULL THEN 'waitlist.' || (v_row ->> 'status')
      ELSE 'waitlist.updated' END;
  ELSIF TG_TABLE_NAME = 'walk_ins' THEN
    v_type := CASE TG_OP WHEN 'INSERT' THEN 'walk_in.created' WHEN 'DELETE' THEN 'walk_in.removed'
      ELSE 'walk_in.updated' END;
  ELSE
    v_type := CASE
      WHEN TG_OP = 'DELETE' THEN 'block.deleted'
      WHEN TG_OP = 'UPDATE' THEN 'block.updated'
      WHEN v_row ->> 'source' = 'import' THEN 'block.imported'
      ELSE 'block.created' END;
  END IF;
  INSERT INTO change_log (live) VALUES (concat_ws(':', v_row ->> 'business_id', v_type, v_row ->> 'id',
    coalesce(v_date, ''), coalesce(v_row ->> 'booking_id', '')));
  RETURN NULL;
END $$;
