-- What committed changes announce, as rows in the change's own transaction instead of `pg_notify`:
-- a notifying transaction takes a lock at commit that every notifying commit of the cluster queues
-- for. `cache` is what the availability and key caches drop (`rules:<business>`, `busy:<business>`,
-- `busy:<business>:<UTC date>[,<UTC date>...]`, `keys:<id>`), `live` the live stream's event
-- (`<business>:<type>:<id>:<date>:<booking>`). Every process reads the rows by `xid`
-- (platform/change-log.ts); ids are not commit order. Rows are deleted after an hour.
CREATE TABLE change_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  at timestamptz NOT NULL DEFAULT now(),
  cache text,
  live text,
  CHECK (cache IS NOT NULL OR live IS NOT NULL)
);
CREATE INDEX change_log_xid ON change_log (xid);
COMMENT ON TABLE change_log IS 'Append-only log of what committed changes announce to the caches (cache) and live streams (live), written by triggers in the change''s transaction and read by every process by xid; kept an hour.';

-- The notifying functions go, and with them every trigger calling them: db/ defines the triggers
-- again, on the functions that write the log. The four triggers of a booking become one, whose
-- function calls what were the trigger functions of two of them.
DROP FUNCTION IF EXISTS notify_change() CASCADE;
DROP FUNCTION IF EXISTS notify_live_event() CASCADE;
DROP FUNCTION IF EXISTS notify_booking_change() CASCADE;
DROP FUNCTION IF EXISTS slotwise_hold_booking() CASCADE;
DROP FUNCTION IF EXISTS slotwise_note_opening() CASCADE;
