CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE developers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  password_hash text NOT NULL,
  first_name text NOT NULL,
  last_name text NOT NULL,
  subscription_status text NOT NULL DEFAULT 'trial'
    CHECK (subscription_status IN ('trial', 'active', 'past_due', 'cancelled')),
  subscription_plan_id text NOT NULL DEFAULT 'trial',
  trial_ends_at timestamptz NOT NULL DEFAULT now() + interval '14 days',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX developers_email_key ON developers (lower(email));

CREATE TABLE businesses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  developer_id uuid NOT NULL REFERENCES developers (id),
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  business_type text,
  is_dev boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  timezone text NOT NULL DEFAULT 'UTC',
  default_slot_interval_minutes integer NOT NULL DEFAULT 30,
  default_slot_duration_minutes integer NOT NULL DEFAULT 60,
  booking_window_days integer NOT NULL DEFAULT 60,
  min_notice_hours integer NOT NULL DEFAULT 0,
  min_capacity integer NOT NULL DEFAULT 1,
  max_capacity integer NOT NULL DEFAULT 50,
  auto_confirm_bookings boolean NOT NULL DEFAULT true,
  default_deposit_amount_cents integer NOT NULL DEFAULT 500,
  booking_mode text NOT NULL DEFAULT 'scheduled' CHECK (booking_mode IN ('scheduled', 'dynamic')),
  buffer_minutes integer NOT NULL DEFAULT 0,
  deposit_type text NOT NULL DEFAULT 'none' CHECK (deposit_type IN ('none', 'charge', 'authorization_hold'))
);
CREATE INDEX businesses_developer_idx ON businesses (developer_id, created_at);

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  email text NOT NULL,
  password_hash text NOT NULL,
  role text NOT NULL CHECK (role IN ('business_owner', 'staff_member')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE INDEX users_business_idx ON users (business_id, created_at, id);

CREATE TABLE refresh_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash text NOT NULL UNIQUE,
  subject_kind text NOT NULL CHECK (subject_kind IN ('developer', 'user')),
  subject_id uuid NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  name text NOT NULL,
  prefix text NOT NULL,
  lookup text NOT NULL,
  key_hash text NOT NULL,
  scopes text[] NOT NULL,
  environment text NOT NULL CHECK (environment IN ('live', 'test')),
  rate_limit_per_minute integer,
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX api_keys_lookup_idx ON api_keys (lookup);
CREATE INDEX api_keys_business_idx ON api_keys (business_id, created_at, id);

CREATE TABLE audit_logs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  business_id uuid NOT NULL REFERENCES businesses (id),
  user_email text NOT NULL,
  action text NOT NULL,
  entity_type text NOT NULL,
  entity_id uuid,
  before_state jsonb,
  after_state jsonb,
  meta jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_logs_business_idx ON audit_logs (business_id, seq DESC);
