-- Online bookings made without a secret credential (a publishable key: the hosted page, a widget)
-- are limited per client IP and business and hour; each business sets how many.
ALTER TABLE businesses
  ADD COLUMN public_bookings_per_ip_per_hour integer NOT NULL DEFAULT 10
    CHECK (public_bookings_per_ip_per_hour BETWEEN 1 AND 1000);

-- A sandbox (`is_dev`) business takes a capped number of bookings per calendar month (UTC), counted
-- in the booking's transaction: an increment only succeeds below the cap, and concurrent bookings
-- of one sandbox queue on its month's row for the instant before they commit.
CREATE TABLE sandbox_usage (
  business_id uuid NOT NULL REFERENCES businesses (id),
  month date NOT NULL,
  bookings integer NOT NULL CHECK (bookings >= 0),
  PRIMARY KEY (business_id, month)
);

-- A sandbox business's message to anyone but its developer and its staff is withheld: logged,
-- never sent, and marked so here. Withheld messages are done with, as sent ones are.
ALTER TABLE email_outbox ADD COLUMN withheld_at timestamptz;
DROP INDEX email_outbox_unsent_idx;
CREATE INDEX email_outbox_unsent_idx ON email_outbox (next_attempt_at)
  WHERE sent_at IS NULL AND withheld_at IS NULL;
