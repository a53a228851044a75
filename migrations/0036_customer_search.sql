-- A host finds a guest by typing part of a name, email or phone as it comes to mind: without
-- accents or case ("mul" finds "Müller"), and the phone in its national or international form
-- ("030 123" finds "+49 30 123 4567"). Both keys are kept by the trigger customers_search
-- (db/triggers/customers_search.sql), which also fills them for the customers already stored;
-- the rules are db/functions/slotwise_search_fold.sql and slotwise_phone_national.sql.
CREATE EXTENSION IF NOT EXISTS unaccent;

ALTER TABLE customers ADD COLUMN search_text text, ADD COLUMN phone_national text;

-- Replaced by the folded text's index: no query compares the raw text any more.
DROP INDEX customers_search_idx;
CREATE INDEX customers_search_text_trgm_idx ON customers USING gin (search_text gin_trgm_ops);
CREATE INDEX customers_phone_national_trgm_idx ON customers USING gin (phone_national gin_trgm_ops);
