-- Refuses a statement's JSON parameter `p` that is not an object or lacks one of `p_keys` (a key
-- holding null is present): read as `p->>'key'`, a key renamed on one side only would otherwise
-- be NULL without a word. `p_what` names the parameter in the message. The parameters' shapes are
-- src/bookings/statements.model.ts.
CREATE OR REPLACE FUNCTION slotwise_require(p jsonb, p_keys text[], p_what text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_key text;
BEGIN
  IF jsonb_typeof(p) IS DISTINCT FROM 'object' THEN
    RAISE EXCEPTION '% is not a JSON object', p_what USING ERRCODE = 'SWC01';
  END IF;
  FOREACH v_key IN ARRAY p_keys LOOP
    IF NOT p ? v_key THEN
      RAISE EXCEPTION '% lacks the key "%"', p_what, v_key USING ERRCODE = 'SWC01';
    END IF;
  END LOOP;
END $$;
