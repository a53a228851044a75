-- Takes the turn (slotwise_take_turn) of every resource of a candidate set: one resource, or the
-- tables of a combination. Always in the order of their ids, so two placements whose sets share
-- resources (4 + 5 and 5 + 6) wait for each other instead of each holding what the other needs.
CREATE OR REPLACE FUNCTION slotwise_take_turns(p_business uuid, p_resources uuid[], p_during tstzrange,
  p_unblocked boolean)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_resource uuid;
BEGIN
  FOR v_resource IN SELECT DISTINCT held FROM unnest(p_resources) AS held ORDER BY held LOOP
    PERFORM slotwise_take_turn(p_business, v_resource, p_during, p_unblocked);
  END LOOP;
END $$;
