-- Gives back the unit a booking took of its month, counted where the booking statement counted it:
-- its sandbox business's own month (`sandbox_usage`), or its developer's quota (`booking_usage`,
-- one unit off the first shard that holds one, locking that row only, so it never waits for more
-- than one booking being counted). Called by the transaction that cancels a booking which never
-- became confirmed, once per booking. The month is the UTC month the booking was made in.
CREATE OR REPLACE FUNCTION slotwise_give_unit_back(p_business uuid, p_booking uuid)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_counted record;
  v_month date;
BEGIN
  SELECT biz.developer_id, biz.is_dev, b.created_at INTO v_counted
  FROM bookings b JOIN businesses biz ON biz.id = b.business_id
  WHERE b.business_id = p_business AND b.id = p_booking;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_month := date_trunc('month', v_counted.created_at AT TIME ZONE 'UTC')::date;
  IF v_counted.is_dev THEN
    UPDATE sandbox_usage SET bookings = bookings - 1
    WHERE business_id = p_business AND month = v_month AND bookings > 0;
    RETURN;
  END IF;
  UPDATE booking_usage SET bookings = bookings - 1
  WHERE developer_id = v_counted.developer_id AND month = v_month AND shard = (
    SELECT shard FROM booking_usage
    WHERE developer_id = v_counted.developer_id AND month = v_month AND bookings > 0
    ORDER BY shard LIMIT 1
    FOR UPDATE);
END $$;
