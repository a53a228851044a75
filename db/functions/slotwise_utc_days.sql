-- The UTC days a held time touches, in order. PL/pgSQL with its row estimate rather than an inlined
-- SQL function: inlined, a caller's statement (a turn's advisory locks) was estimated at a thousand
-- days unless planned for its very range, so PL/pgSQL planned it anew on every call, which cost ten
-- times its execution; this way the callers' plans are kept for the session.
CREATE OR REPLACE FUNCTION slotwise_utc_days(p_held tstzrange) RETURNS SETOF date LANGUAGE plpgsql IMMUTABLE
ROWS 2 AS $$
DECLARE
  v_day date := (lower(p_held) AT TIME ZONE 'UTC')::date;
  v_last date := (upper(p_held) AT TIME ZONE 'UTC' - interval '1 microsecond')::date;
BEGIN
  WHILE v_day <= v_last LOOP
    RETURN NEXT v_day;
    v_day := v_day + 1;
  END LOOP;
END $$;
