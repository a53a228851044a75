-- Each booking as the API shows it: `view` is the wire shape of the Booking schema
-- (src/bookings/bookings.view.ts), built here only, for the lists and details TypeScript reads and
-- for what the booking statements answer, audit and send as event payloads. Beside it, the
-- booking's own columns that lists filter and sort on (straight from `bookings`, so their indexes
-- serve the keyset pages; a column a query does not read is never computed) and the UTC dates its
-- held time touches (`slotwise_utc_days`, the days its trigger announces and its turn locks).
-- `resource_id` is the first resource the booking holds, `resource_ids` all of them (a combination's
-- tables; one for a booking of one resource).
-- Formats: times `HH:MM`, dates `YYYY-MM-DD`, timestamps ISO 8601 in UTC with milliseconds (as
-- JavaScript's toISOString writes them); a deposit shows only with its status, type and amount.
CREATE OR REPLACE VIEW booking_views AS
SELECT
  b.business_id,
  b.id,
  b.booking_date,
  b.start_time,
  b.created_at,
  b.status,
  b.confirmation_code,
  b.resource_id,
  b.joined_resource_ids,
  b.customer_id,
  (SELECT jsonb_agg(to_char(day, 'YYYY-MM-DD') ORDER BY day) FROM slotwise_utc_days(b.during) AS day)
    AS held_dates,
  jsonb_build_object(
    'id', b.id,
    'business_id', b.business_id,
    'status', b.status,
    'confirmation_code', b.confirmation_code,
    'booking_date', to_char(b.booking_date, 'YYYY-MM-DD'),
    'start_time', to_char(b.start_time, 'HH24:MI'),
    'end_time', to_char(b.end_time, 'HH24:MI'),
    'duration_minutes', b.duration_minutes,
    'capacity', b.capacity,
    'source', b.source,
    'resource_id', b.resource_id,
    'resource_ids', to_jsonb(b.resource_id || b.joined_resource_ids),
    'service_id', b.service_id,
    'customer_id', b.customer_id,
    'series_id', b.series_id,
    'table_locked', b.table_locked,
    'partner', CASE WHEN p.id IS NOT NULL THEN jsonb_build_object('id', p.id, 'name', p.name) END,
    'customer', jsonb_build_object('id', c.id, 'first_name', c.first_name, 'last_name', c.last_name,
      'phone', c.phone, 'email', c.email),
    'guest', CASE WHEN b.guest_first_name IS NOT NULL THEN jsonb_build_object(
      'first_name', b.guest_first_name, 'last_name', coalesce(b.guest_last_name, ''),
      'email', b.guest_email) END,
    'resource', jsonb_build_object('id', r.id, 'name', r.name, 'capacity_max', r.capacity_max,
      'section', r.section),
    'customer_notes', b.customer_notes,
    'staff_notes', b.staff_notes,
    'deposit', CASE WHEN d.status IS NOT NULL AND d.type IS NOT NULL AND d.amount_cents IS NOT NULL
      THEN jsonb_build_object('status', d.status, 'type', d.type, 'amount_cents', d.amount_cents,
        'processor_payment_id', d.processor_payment_id) END,
    'starts_at', to_char(b.starts_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'ends_at', to_char(b.ends_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'created_at', to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updated_at', to_char(b.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  ) AS view,
  -- The guest's profile as the host stand shows it beside a booking; kept out of `view`, so that no
  -- audit row, event payload or answer to a change copies a guest's allergies.
  jsonb_build_object('allergies', c.allergies, 'tags', to_jsonb(c.tags)) AS guest_profile
FROM bookings b
JOIN customers c ON c.business_id = b.business_id AND c.id = b.customer_id
JOIN resources r ON r.business_id = b.business_id AND r.id = b.resource_id
LEFT JOIN deposits d ON d.business_id = b.business_id AND d.booking_id = b.id
LEFT JOIN partners p ON p.id = b.partner_id;
