-- Every refusal of the booking statements is raised now. `slotwise_take_turn` judges an active and
-- unblocked resource itself and raises otherwise, answering nothing; `slotwise_count_booking`
-- names the plan in its refusal. New signatures: the old functions go, and db/functions/ creates
-- the new ones.
DROP FUNCTION slotwise_take_turn(uuid, uuid, tstzrange);
DROP FUNCTION slotwise_count_booking(uuid, date, int);
