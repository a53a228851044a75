-- Keeps a customer's search keys (migration 0036) as their name, email and phone change.
CREATE OR REPLACE FUNCTION slotwise_customer_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_text := slotwise_search_fold(
    NEW.first_name || ' ' || NEW.last_name || ' ' || NEW.phone || ' ' || coalesce(NEW.email, ''));
  NEW.phone_national := slotwise_phone_national(NEW.phone);
  RETURN NEW;
END
$$;
