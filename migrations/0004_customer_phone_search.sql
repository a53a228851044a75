-- Searches made of digits also match the phone as normalised (digits, leading +), so
-- "30 1234" finds "+49 30 1234 567"; with customers_search_idx both halves of that OR use an index.
CREATE INDEX customers_phone_normalized_trgm_idx ON customers USING gin (phone_normalized gin_trgm_ops);
