-- A JSON value with every string that holds one of `p_secrets` (whatever the case) replaced by an
-- empty string; keys, numbers and the shape stay. An erased guest's name, email and phone leave
-- the stored states, events and processor objects this way, whatever field they were copied into.
-- Secrets shorter than 3 characters are matched only as a whole string: "Al" would otherwise blank
-- every status that holds "al". The values under `p_keys` (at any depth) become null whatever they
-- hold: a booking's earlier notes, which no stored secret names any more.
CREATE OR REPLACE FUNCTION slotwise_redact(p_value jsonb, p_secrets text[], p_keys text[] DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_text text;
BEGIN
  CASE jsonb_typeof(p_value)
    WHEN 'object' THEN
      RETURN (SELECT coalesce(jsonb_object_agg(key, CASE WHEN key = ANY (p_keys) THEN 'null'::jsonb
          ELSE slotwise_redact(value, p_secrets, p_keys) END), '{}')
        FROM jsonb_each(p_value));
    WHEN 'array' THEN
      RETURN (SELECT coalesce(jsonb_agg(slotwise_redact(value, p_secrets, p_keys) ORDER BY ord), '[]')
        FROM jsonb_array_elements(p_value) WITH ORDINALITY AS element(value, ord));
    WHEN 'string' THEN
      v_text := lower(p_value #>> '{}');
      IF EXISTS (SELECT 1 FROM unnest(p_secrets) AS secret
          WHERE v_text = lower(secret) OR (length(secret) >= 3 AND strpos(v_text, lower(secret)) > 0)) THEN
        RETURN to_jsonb(''::text);
      END IF;
      RETURN p_value;
    ELSE
      RETURN p_value;
  END CASE;
END $$;
