-- A phone number, or the start of one, reduced to what its national and international forms
-- share: its digits without the international prefix ("+" or "00") and country code, and without
-- leading zeros (the trunk prefix). "+49 30 1234", "0049 30 1234" and "030 1234" all give
-- "301234". Country codes are prefix-free (ITU E.164): the one-digit and two-digit ones are
-- listed, every other has three digits. Italy's numbers keep their 0 after +39 and lose it here
-- like the others, so both forms still meet.
-- PL/pgSQL: a SQL function of more than one expression is planned anew on every call, and the
-- customers_search trigger calls this one for every new customer a booking writes.
CREATE OR REPLACE FUNCTION slotwise_phone_national(p_phone text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_digits text := regexp_replace(p_phone, '\D', '', 'g');
  v_international text := regexp_replace(v_digits, '^00', '');
BEGIN
  RETURN ltrim(CASE
    WHEN p_phone !~ '^\s*(\+|00)' THEN v_digits
    WHEN v_international ~ '^[17]' THEN substr(v_international, 2)
    WHEN v_international ~ '^(2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58])' THEN substr(v_international, 3)
    ELSE substr(v_international, 4)
  END, '0');
END $$;
