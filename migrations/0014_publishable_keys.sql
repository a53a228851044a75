-- Publishable keys: keys meant for web pages, usable only from the origins they list. They are no
-- secret, so the key itself is kept (`public_key`) to be listed again and served to the hosted
-- booking page; secret keys keep only their hash. A secret key has no origins and no stored key.
ALTER TABLE api_keys
  ADD COLUMN type text NOT NULL DEFAULT 'secret' CHECK (type IN ('secret', 'publishable')),
  ADD COLUMN allowed_origins text[] NOT NULL DEFAULT '{}',
  ADD COLUMN is_default boolean NOT NULL DEFAULT false,
  ADD COLUMN public_key text,
  ADD CONSTRAINT api_keys_public_key_of_publishable CHECK ((type = 'publishable') = (public_key IS NOT NULL)),
  ADD CONSTRAINT api_keys_default_is_publishable CHECK (NOT is_default OR type = 'publishable');

-- One active default publishable key per business: rotating it revokes the old one first.
CREATE UNIQUE INDEX api_keys_default_idx ON api_keys (business_id) WHERE is_default AND is_active;
-- "Does any active publishable key allow this origin?": the question of every CORS preflight.
CREATE INDEX api_keys_origins_idx ON api_keys USING gin (allowed_origins) WHERE type = 'publishable' AND is_active;

-- Cached verified keys carry their origins, and processes cache which origins any key allows: a
-- change of origins, and a new key that brings origins, are announced like a revocation.
DROP TRIGGER api_keys_changed ON api_keys;
CREATE TRIGGER api_keys_changed AFTER UPDATE OF is_active, scopes, rate_limit_per_minute, key_hash, business_id, allowed_origins OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_change('keys', 'business_id');
CREATE TRIGGER api_keys_origins_added AFTER INSERT ON api_keys
  FOR EACH ROW WHEN (NEW.allowed_origins <> '{}') EXECUTE FUNCTION notify_change('keys', 'business_id');

-- Every existing business gets the default publishable key that new businesses get at creation:
-- 40 letters and digits after `svc_pk_live_` (`svc_pk_test_` for a sandbox), drawn from 64 bytes
-- of SHA-512 over two random UUIDs and the business's id (which makes the draw differ per row),
-- stored as the app stores keys: the head for lookup, the SHA-256 for verification.
INSERT INTO api_keys (business_id, name, type, prefix, lookup, key_hash, public_key, scopes, environment, is_default)
SELECT id, 'default publishable', 'publishable', left(key, 16), left(key, 20),
       encode(sha256(convert_to(key, 'UTF8')), 'hex'), key, '{}', environment, true
FROM (
  SELECT b.id, e.environment, 'svc_pk_' || e.environment || '_' || (
    SELECT string_agg(
      substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', get_byte(r.bytes, i) % 62 + 1, 1),
      '' ORDER BY i)
    FROM generate_series(0, 39) AS i
  ) AS key
  FROM businesses b
  CROSS JOIN LATERAL (SELECT CASE WHEN b.is_dev THEN 'test' ELSE 'live' END AS environment) e
  CROSS JOIN LATERAL (
    SELECT sha512(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()) || uuid_send(b.id)) AS bytes
  ) r
) AS made;
