-- `slotwise_emit_event` learns who made the change (an optional fifth argument), so that the
-- messages it queues can tell a guest's cancellation from the venue's. Definitions are replaced
-- after the migrations, and CREATE OR REPLACE with another argument list makes a second function
-- beside the old one: the old one goes here.
DROP FUNCTION slotwise_emit_event(uuid, text, json, text);
