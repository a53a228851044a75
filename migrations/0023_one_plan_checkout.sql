-- A developer pays for one plan at a time.
-- - `billing_checkout_id`: the developer's open plan checkout at the processor. Opening another
--   expires it, so two checkouts cannot both be paid.
-- - `billing_cleanups`: what is left to do at the processor about a developer's billing, done by a
--   job outside any transaction (the processor's events are applied inside one and may not call
--   it): a checkout to expire that a concurrent request left open, a subscription to cancel that a
--   newer paid checkout replaced. A row is deleted once the processor has done it or says there is
--   nothing left to do.

ALTER TABLE developers ADD COLUMN billing_checkout_id text;

CREATE TABLE billing_cleanups (
  processor_object_id text PRIMARY KEY,
  developer_id uuid NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
  action text NOT NULL CHECK (action IN ('expire_checkout', 'cancel_subscription')),
  due_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX billing_cleanups_due ON billing_cleanups (due_at);
