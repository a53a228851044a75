-- The UTC days a held time touches, in order.
CREATE OR REPLACE FUNCTION slotwise_utc_days(p_held tstzrange) RETURNS SETOF date LANGUAGE sql IMMUTABLE AS $$
  SELECT day::date FROM generate_series(
    date_trunc('day', lower(p_held) AT TIME ZONE 'UTC'),
    date_trunc('day', upper(p_held) AT TIME ZONE 'UTC' - interval '1 microsecond'),
    interval '1 day') AS day
$$;
