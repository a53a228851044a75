-- Reservation partners (docs/partners.md): a partner reaches the businesses that list with it through
-- the booking server of the Maps Booking v3 partner API and its feeds, with HTTP Basic credentials
-- of its own. A partner belongs to the developer whose businesses list with it, so a credential
-- never reaches another developer's business.
CREATE TABLE partners (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  developer_id uuid NOT NULL REFERENCES developers (id),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  -- The Basic user name: public, random, found by equality; the password is kept as its SHA-256
  -- only (a random secret of 256 bits, as API keys are kept).
  username text NOT NULL UNIQUE,
  secret_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX partners_developer_idx ON partners (developer_id);

CREATE TABLE partner_listings (
  business_id uuid NOT NULL REFERENCES businesses (id),
  partner_id uuid NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, partner_id)
);
CREATE INDEX partner_listings_partner_idx ON partner_listings (partner_id, business_id);

-- Which partner made a booking, for whom (the partner's own user id, which ListBookings asks by),
-- and under which idempotency token: one booking per token, partner and business, however often
-- it is retried.
CREATE TABLE partner_bookings (
  business_id uuid NOT NULL,
  booking_id uuid NOT NULL,
  -- A partner (never deleted) by its id alone: a distributed table's keys all hold business_id.
  partner_id uuid NOT NULL,
  user_id text,
  idempotency_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (business_id, booking_id),
  FOREIGN KEY (business_id, booking_id) REFERENCES bookings (business_id, id) ON DELETE CASCADE,
  UNIQUE (business_id, partner_id, idempotency_token)
);
CREATE INDEX partner_bookings_user_idx ON partner_bookings (partner_id, user_id);
CREATE INDEX partner_bookings_booking_idx ON partner_bookings (partner_id, booking_id);

-- The partner a booking of source `partner` was made by: the booking's own fact, which its view
-- names; partner_bookings keeps the partner's bookkeeping beside it. No foreign key, as above.
ALTER TABLE bookings ADD COLUMN partner_id uuid;
ALTER TABLE bookings DROP CONSTRAINT bookings_source_check;
ALTER TABLE bookings ADD CONSTRAINT bookings_source_check
  CHECK (source IN ('online', 'staff', 'sandbox', 'partner'));

ALTER TABLE login_failures DROP CONSTRAINT login_failures_account_kind_check;
ALTER TABLE login_failures ADD CONSTRAINT login_failures_account_kind_check
  CHECK (account_kind IN ('developer', 'user', 'partner'));
COMMENT ON COLUMN login_failures.email IS 'The email tried, or a partner''s Basic user name.';
