-- What a business tells its guests and itself, and how. A null venue_notification_email is a venue
-- that is not told of new online bookings and guest cancellations.
ALTER TABLE businesses
  ADD COLUMN notification_language text NOT NULL DEFAULT 'en'
    CHECK (notification_language IN ('en', 'de', 'fr', 'nl', 'es')),
  ADD COLUMN guest_emails_enabled boolean NOT NULL DEFAULT true,
  ADD COLUMN sms_enabled boolean NOT NULL DEFAULT false,
  ADD COLUMN reminder_hours_before integer NOT NULL DEFAULT 24
    CHECK (reminder_hours_before BETWEEN 0 AND 168),
  ADD COLUMN venue_notification_email text CHECK (char_length(venue_notification_email) <= 254),
  ADD COLUMN waitlist_offer_minutes integer NOT NULL DEFAULT 30
    CHECK (waitlist_offer_minutes BETWEEN 5 AND 1440);

COMMENT ON COLUMN businesses.notification_language IS 'The language of every message to guests and to the venue.';
COMMENT ON COLUMN businesses.reminder_hours_before IS 'Hours before the start a guest is reminded; 0 sends no reminder.';
COMMENT ON COLUMN businesses.venue_notification_email IS 'Told of each new online booking and each guest cancellation.';
COMMENT ON COLUMN businesses.waitlist_offer_minutes IS 'How long a waitlist offer''s booking link stays valid.';

-- The outbox of payment links grows into the outbox of every message: email or SMS, to a guest or
-- to the venue. A message written by a change carries what it tells (`payload`) and is rendered
-- when sent, in the business's language; a payment link or an invitation is written rendered
-- (`subject`, `body_text`). The row's id is the email's Message-ID, so a message sent again after
-- a crash between the send and its record reads as the same message.
ALTER TABLE email_outbox RENAME TO message_outbox;
ALTER INDEX email_outbox_pkey RENAME TO message_outbox_pkey;
ALTER INDEX email_outbox_unsent_idx RENAME TO message_outbox_unsent_idx;
ALTER TABLE message_outbox RENAME CONSTRAINT email_outbox_business_id_fkey TO message_outbox_business_id_fkey;
ALTER TABLE message_outbox
  ALTER COLUMN subject DROP NOT NULL,
  ALTER COLUMN body_text DROP NOT NULL,
  ADD COLUMN type text NOT NULL DEFAULT 'notice' CHECK (type IN (
    'notice', 'booking_confirmed', 'booking_rescheduled', 'booking_cancelled', 'booking_reminder',
    'waitlist_offer', 'venue_new_booking', 'venue_guest_cancellation')),
  ADD COLUMN channel text NOT NULL DEFAULT 'email' CHECK (channel IN ('email', 'sms')),
  -- No foreign keys: the outbox spans businesses (docs/scaling.md), and a sandbox booking's row
  -- outlives the booking's deletion.
  ADD COLUMN booking_id uuid,
  ADD COLUMN waitlist_entry_id uuid,
  ADD COLUMN payload jsonb,
  ADD COLUMN sequence integer,
  ADD COLUMN failed_at timestamptz,
  ADD CONSTRAINT message_outbox_rendered_or_told
    CHECK ((subject IS NOT NULL AND body_text IS NOT NULL) OR payload IS NOT NULL);

COMMENT ON COLUMN message_outbox.type IS '`notice` is a message written rendered (a payment link, an invitation).';
COMMENT ON COLUMN message_outbox.payload IS 'What a message tells (the booking as the API answers it, an offer), rendered when sent.';
COMMENT ON COLUMN message_outbox.sequence IS 'The SEQUENCE of the booking''s calendar invite this message carries.';
COMMENT ON COLUMN message_outbox.failed_at IS 'When the sender gave up on it.';

CREATE INDEX message_outbox_business_idx ON message_outbox (business_id, created_at DESC, id DESC);
CREATE INDEX message_outbox_booking_idx ON message_outbox (booking_id) WHERE booking_id IS NOT NULL;
-- A reminder at most once per booking and channel, however many reminder runs race.
CREATE UNIQUE INDEX message_outbox_one_reminder ON message_outbox (booking_id, channel)
  WHERE type = 'booking_reminder';
