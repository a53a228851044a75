CREATE TABLE resources (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  name text NOT NULL,
  resource_type text,
  capacity_min integer NOT NULL,
  capacity_max integer NOT NULL,
  section text,
  display_order integer NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Deleted resources stay as rows so past bookings keep their resource.
  deleted_at timestamptz,
  CHECK (capacity_min <= capacity_max)
);
CREATE INDEX resources_business_idx ON resources (business_id, display_order, id) WHERE deleted_at IS NULL;

CREATE TABLE services (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  name text NOT NULL,
  description text,
  duration_minutes integer NOT NULL,
  buffer_before_minutes integer NOT NULL DEFAULT 0,
  buffer_after_minutes integer NOT NULL DEFAULT 0,
  price_cents integer,
  resource_ids uuid[] NOT NULL DEFAULT '{}',
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX services_business_idx ON services (business_id, name, id) WHERE deleted_at IS NULL;

CREATE TABLE operating_hours (
  business_id uuid NOT NULL REFERENCES businesses (id),
  day_of_week smallint NOT NULL CHECK (day_of_week BETWEEN 0 AND 6),
  is_open boolean NOT NULL,
  open_time time,
  close_time time,
  last_booking_time time,
  PRIMARY KEY (business_id, day_of_week)
);

CREATE TABLE blackout_dates (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  business_id uuid NOT NULL REFERENCES businesses (id),
  start_date date NOT NULL,
  end_date date NOT NULL,
  reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (end_date >= start_date)
);
CREATE INDEX blackout_dates_business_idx ON blackout_dates (business_id, start_date, id);
