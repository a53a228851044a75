-- Text as a search compares it: lower case, accents removed ("Élodie Müller" -> "elodie muller",
-- "ß" -> "ss"). The one rule for both what is stored (customers.search_text) and what is typed.
CREATE OR REPLACE FUNCTION slotwise_search_fold(p_text text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT lower(unaccent(p_text))
$$;
