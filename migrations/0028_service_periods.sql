-- Service periods: a weekday that has any is bookable only inside them (lunch and dinner, not the
-- gap between); a weekday without keeps its operating-hours window. The API checks that periods
-- lie inside the day's hours and never overlap on one weekday.

CREATE TABLE service_periods (
  business_id uuid NOT NULL REFERENCES businesses (id),
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 60),
  days_of_week smallint[] NOT NULL CHECK (days_of_week <@ '{0,1,2,3,4,5,6}'::smallint[] AND cardinality(days_of_week) > 0),
  start_time time NOT NULL,
  end_time time NOT NULL,
  last_start_time time,
  slot_interval_minutes integer CHECK (slot_interval_minutes BETWEEN 15 AND 120),
  turn_times jsonb CHECK (jsonb_typeof(turn_times) = 'array'),
  resource_ids uuid[] NOT NULL DEFAULT '{}',
  position integer NOT NULL,
  PRIMARY KEY (business_id, id)
);

COMMENT ON TABLE service_periods IS 'The bookable periods of a weekday (lunch, dinner); replaced all at once by PUT /v1/manage/service-periods.';
COMMENT ON COLUMN service_periods.end_time IS 'At or before start_time means the period runs past midnight, as for operating hours.';
COMMENT ON COLUMN service_periods.last_start_time IS 'Latest start; null means end_time minus the booking length.';
COMMENT ON COLUMN service_periods.slot_interval_minutes IS 'The period''s own grid step from start_time; null means the business''s default_slot_interval_minutes.';
COMMENT ON COLUMN service_periods.turn_times IS 'Booking lengths by party size inside this period, as businesses.turn_times; null means the business''s.';
COMMENT ON COLUMN service_periods.resource_ids IS 'The resources bookable in this period; empty means all.';
COMMENT ON COLUMN service_periods.position IS 'The order the periods were given in, kept for the answer.';
