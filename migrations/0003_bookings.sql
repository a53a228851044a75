CREATE TABLE customers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  first_name text NOT NULL,
  last_name text NOT NULL,
  phone text NOT NULL,
  phone_normalized text NOT NULL,
  email text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (business_id, phone_normalized)
);
CREATE INDEX customers_business_idx ON customers (business_id, created_at, id);
CREATE INDEX customers_search_idx ON customers
  USING gin ((first_name || ' ' || last_name || ' ' || phone || ' ' || coalesce(email, '')) gin_trgm_ops);

CREATE TABLE resource_blocks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  resource_id uuid NOT NULL REFERENCES resources (id),
  during tstzrange NOT NULL CHECK (NOT isempty(during)),
  reason text,
  source text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX resource_blocks_during_idx ON resource_blocks USING gist (business_id, during);

CREATE TABLE bookings (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  customer_id uuid NOT NULL REFERENCES customers (id),
  resource_id uuid NOT NULL REFERENCES resources (id),
  service_id uuid REFERENCES services (id),
  booking_date date NOT NULL,
  start_time time NOT NULL,
  end_time time NOT NULL,
  duration_minutes integer NOT NULL,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  -- What the resource is held for: the booking plus its buffers, in absolute time.
  during tstzrange NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'confirmed', 'checked_in', 'completed', 'cancelled', 'no_show')),
  confirmation_code text NOT NULL,
  capacity integer NOT NULL CHECK (capacity BETWEEN 1 AND 50),
  source text NOT NULL CHECK (source IN ('online', 'staff', 'sandbox')),
  customer_notes text,
  staff_notes text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (business_id, confirmation_code),
  CONSTRAINT bookings_no_overlap EXCLUDE USING gist (resource_id WITH =, during WITH &&)
    WHERE (status IN ('pending', 'confirmed', 'checked_in'))
);
CREATE INDEX bookings_business_date_idx ON bookings (business_id, booking_date, start_time, id);
CREATE INDEX bookings_business_created_idx ON bookings (business_id, created_at DESC, id DESC);
CREATE INDEX bookings_during_idx ON bookings USING gist (business_id, during)
  WHERE status IN ('pending', 'confirmed', 'checked_in');
CREATE INDEX bookings_customer_idx ON bookings (customer_id, booking_date DESC);
CREATE INDEX bookings_code_trgm_idx ON bookings USING gin (confirmation_code gin_trgm_ops);

CREATE TABLE waitlist_entries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  customer_id uuid NOT NULL REFERENCES customers (id),
  preferred_date date,
  service_id uuid REFERENCES services (id),
  capacity integer NOT NULL DEFAULT 1,
  notes text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX waitlist_business_idx ON waitlist_entries (business_id, created_at, id);

CREATE TABLE idempotency_keys (
  credential text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  status_code integer,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (credential, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
