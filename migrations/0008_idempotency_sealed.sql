-- A stored response that carries a secret (a new API key, a token, a webhook secret) is kept
-- encrypted; this marks which ones are.
ALTER TABLE idempotency_keys ADD COLUMN sealed boolean NOT NULL DEFAULT false;
