-- The host stand's queue of walk-ins waiting for a table (docs/api-behaviour.md, "Walk-ins"): a
-- party and, when the guest gives them, a name and a phone or an email to be told the table is
-- ready. An entry leaves the queue when it is seated (the booking keeps the guest) or removed.
CREATE TABLE walk_ins (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  -- The order the queue was joined in: entries are added one at a time per business.
  queued bigint GENERATED ALWAYS AS IDENTITY,
  business_id uuid NOT NULL REFERENCES businesses (id),
  capacity integer NOT NULL CHECK (capacity > 0),
  first_name text,
  last_name text,
  phone text,
  email text,
  notes text,
  notified_at timestamptz,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (business_id, id)
);
CREATE INDEX walk_ins_queue_idx ON walk_ins (business_id, queued);

COMMENT ON COLUMN walk_ins.notified_at IS 'When the guest was last told their table is ready.';
ALTER TABLE message_outbox DROP CONSTRAINT message_outbox_type_check;
ALTER TABLE message_outbox ADD CONSTRAINT message_outbox_type_check CHECK (type IN (
  'notice', 'booking_confirmed', 'booking_rescheduled', 'booking_cancelled', 'booking_reminder',
  'waitlist_offer', 'venue_new_booking', 'venue_guest_cancellation', 'table_ready'));
COMMENT ON COLUMN message_outbox.type IS '`notice` is a message written rendered (a payment link, an invitation); `table_ready`, written when told, is sent as written by its channel.';
