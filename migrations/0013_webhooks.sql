-- Outbound webhooks: the endpoints a business registers, the events of its changes (the outbox,
-- written in the change's own transaction) and one delivery per event and endpoint.

-- `secret` is sealed with a key derived from JWT_SECRET. After a rotation the previous secret
-- also signs until `previous_secret_expires_at`, so receivers can switch without losing events.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  url text NOT NULL,
  description text,
  events text[] NOT NULL,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  is_active boolean NOT NULL DEFAULT true,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'failing')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_business_idx ON webhook_endpoints (business_id, created_at, id);

-- `data` is kept as `json` (not `jsonb`), so the fields keep the order the API answers them in.
CREATE TABLE webhook_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  type text NOT NULL,
  data json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- `subject_key` (the booking's id, or the event's own for an event about nothing else) orders an
-- endpoint's deliveries: one waits while an earlier one of its subject (lower `seq`) is still
-- pending or retrying. A claimed delivery is leased until `locked_until`: a dispatcher that dies
-- mid-send leaves it to be claimed again once the lease has passed.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES webhook_events (id),
  subject_key text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'retrying', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  locked_until timestamptz,
  last_response_code integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- The dispatcher's queue, and the look-back for an earlier delivery of the same subject.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
  WHERE status IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_subject_idx ON webhook_deliveries (endpoint_id, subject_key, seq)
  WHERE status IN ('pending', 'retrying');
-- The delivery log, newest first.
CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
