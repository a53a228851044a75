-- Waitlist offers: when a cancellation or a move frees room on a date, the oldest waiting entry of
-- that date whose party fits a free time in its window is offered that time, by a link that books it.

-- The times of day an entry would take, in the venue's zone: both or neither, from before to.
ALTER TABLE waitlist_entries
  ADD COLUMN preferred_time_from time,
  ADD COLUMN preferred_time_to time,
  ADD COLUMN offered_at timestamptz,
  ADD COLUMN booked_booking_id uuid,
  ADD CONSTRAINT waitlist_entries_time_window CHECK (
    (preferred_time_from IS NULL) = (preferred_time_to IS NULL)
    AND (preferred_time_from IS NULL OR preferred_time_from < preferred_time_to));

COMMENT ON COLUMN waitlist_entries.offered_at IS 'When the entry was last offered a time.';
COMMENT ON COLUMN waitlist_entries.booked_booking_id IS 'The booking an offer made for the entry; it waits no more.';

CREATE INDEX waitlist_entries_waiting_idx ON waitlist_entries (business_id, preferred_date, created_at, id)
  WHERE booked_booking_id IS NULL;

-- A date of a business on which room was freed, written in the transaction of the change that
-- freed it (slotwise_note_opening); the offers job turns each into at most one offer.
CREATE TABLE waitlist_openings (
  business_id uuid NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
  id bigint GENERATED ALWAYS AS IDENTITY,
  booking_date date NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id)
);
CREATE INDEX waitlist_openings_queue_idx ON waitlist_openings (id);

CREATE TABLE waitlist_offers (
  business_id uuid NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  waitlist_entry_id uuid NOT NULL,
  booking_date date NOT NULL,
  start_time time NOT NULL,
  -- The resources the engine found free for the party (a combination's tables); the booking made
  -- by the offer is placed afresh, best fit first.
  resource_ids uuid[] NOT NULL,
  party integer NOT NULL CHECK (party > 0),
  token_hash text NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'taken', 'expired')),
  expires_at timestamptz NOT NULL,
  booked_booking_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, id),
  FOREIGN KEY (business_id, waitlist_entry_id) REFERENCES waitlist_entries (business_id, id) ON DELETE CASCADE,
  CHECK ((status = 'taken') = (booked_booking_id IS NOT NULL))
);

-- One open offer per freed time.
CREATE UNIQUE INDEX waitlist_offers_one_open ON waitlist_offers (business_id, booking_date, start_time)
  WHERE status = 'open';
-- The link carries no business: it is found by its token's hash alone.
CREATE INDEX waitlist_offers_token_idx ON waitlist_offers (token_hash);
CREATE INDEX waitlist_offers_expiry_idx ON waitlist_offers (expires_at) WHERE status = 'open';
CREATE INDEX waitlist_offers_entry_idx ON waitlist_offers (business_id, waitlist_entry_id);
