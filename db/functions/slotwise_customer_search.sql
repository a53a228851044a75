-- Keeps a customer's search keys (migration 0036) as their name, email and phone change; an update
-- that names those columns without changing them keeps the keys it has.
CREATE OR REPLACE FUNCTION slotwise_customer_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.search_text IS NOT NULL
    AND (NEW.first_name, NEW.last_name, NEW.phone, NEW.email) IS NOT DISTINCT FROM
      (OLD.first_name, OLD.last_name, OLD.phone, OLD.email) THEN
    RETURN NEW;
  END IF;
  NEW.search_text := slotwise_search_fold(
    NEW.first_name || ' ' || NEW.last_name || ' ' || NEW.phone || ' ' || coalesce(NEW.email, ''));
  NEW.phone_national := slotwise_phone_national(NEW.phone);
  RETURN NEW;
END
$$;
