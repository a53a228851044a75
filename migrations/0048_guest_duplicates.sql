-- The keys a likely duplicate shares with a profile: the same email whatever its case, or the same
-- national phone (one profile typed with the country code, one without). Only live profiles count.
CREATE INDEX customers_email_key_idx ON customers (business_id, lower(email))
  WHERE email IS NOT NULL AND merged_into IS NULL;
CREATE INDEX customers_phone_national_key_idx ON customers (business_id, phone_national)
  WHERE merged_into IS NULL;
