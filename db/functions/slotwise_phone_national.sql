-- A phone number, or the start of one, reduced to what its national and international forms
-- share: its digits without the international prefix ("+" or "00") and country code, and without
-- leading zeros (the trunk prefix). "+49 30 1234", "0049 30 1234" and "030 1234" all give
-- "301234". Country codes are prefix-free (ITU E.164): the one-digit and two-digit ones are
-- listed, every other has three digits. Italy's numbers keep their 0 after +39 and lose it here
-- like the others, so both forms still meet.
CREATE OR REPLACE FUNCTION slotwise_phone_national(p_phone text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT ltrim(CASE
    WHEN p_phone !~ '^\s*(\+|00)' THEN digits
    WHEN international ~ '^[17]' THEN substr(international, 2)
    WHEN international ~ '^(2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58])' THEN substr(international, 3)
    ELSE substr(international, 4)
  END, '0')
  FROM (SELECT regexp_replace(p_phone, '\D', '', 'g') AS digits) AS d,
    LATERAL (SELECT regexp_replace(digits, '^00', '') AS international) AS i
$$;
