-- Deposits, the payment processor's events, connected accounts, developer billing and email.

-- How long a public booking waits for its deposit before the service cancels it.
ALTER TABLE businesses ADD COLUMN payment_hold_minutes integer NOT NULL DEFAULT 30
  CHECK (payment_hold_minutes BETWEEN 5 AND 1440);

-- The developer as the processor knows them: the customer billed and the subscription.
ALTER TABLE developers
  ADD COLUMN processor_customer_id text UNIQUE,
  ADD COLUMN processor_subscription_id text UNIQUE;

-- One deposit per booking. `processor_payment_id` is the payment intent (`pi_...`); a hold for a
-- booking far ahead first saves the card (`processor_setup_id`, `seti_...`) and places the hold at
-- `hold_due_at`. `expires_at`: unpaid by then, the service cancels the booking.
CREATE TABLE deposits (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  booking_id uuid NOT NULL REFERENCES bookings (id),
  type text NOT NULL CHECK (type IN ('charge', 'authorization_hold')),
  status text NOT NULL CHECK (status IN ('requires_payment', 'held', 'paid', 'captured', 'released', 'refunded', 'failed')),
  amount_cents integer NOT NULL CHECK (amount_cents > 0),
  currency text NOT NULL,
  processor text NOT NULL CHECK (processor IN ('stripe', 'simulated')),
  processor_payment_id text UNIQUE,
  processor_setup_id text UNIQUE,
  processor_checkout_id text UNIQUE,
  -- The card saved by a setup intent, for the hold placed later.
  processor_customer_id text,
  processor_payment_method_id text,
  -- A staff deposit's payment link.
  checkout_url text,
  expires_at timestamptz,
  hold_due_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (business_id, booking_id)
);
-- The scheduled jobs' queues: unpaid deposits to expire, holds to place.
CREATE INDEX deposits_expiry_idx ON deposits (expires_at) WHERE status = 'requires_payment';
CREATE INDEX deposits_hold_due_idx ON deposits (hold_due_at) WHERE status = 'requires_payment';

-- Each inbound event is applied once: its id is recorded in the transaction that applies it.
CREATE TABLE processor_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- A business's account with the processor, which deposits are paid into.
CREATE TABLE connected_accounts (
  business_id uuid PRIMARY KEY REFERENCES businesses (id),
  processor text NOT NULL CHECK (processor IN ('stripe', 'simulated')),
  processor_account_id text NOT NULL UNIQUE,
  details_submitted boolean NOT NULL DEFAULT false,
  charges_enabled boolean NOT NULL DEFAULT false,
  payouts_enabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Outgoing email, written in the transaction of what it tells; sent (or, without SMTP, logged)
-- by the service afterwards.
CREATE TABLE email_outbox (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid REFERENCES businesses (id),
  to_address text NOT NULL,
  subject text NOT NULL,
  body_text text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text
);
CREATE INDEX email_outbox_unsent_idx ON email_outbox (created_at) WHERE sent_at IS NULL;

-- The simulated processor's objects (payment and setup intents, checkout sessions, accounts,
-- customers, subscriptions) in the processor's own JSON shape, so its test pages and the events
-- they send survive a restart and agree across processes. A request's idempotency key answers
-- the object it made the first time.
CREATE TABLE simulated_processor_objects (
  id text PRIMARY KEY,
  object jsonb NOT NULL,
  idempotency_key text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
