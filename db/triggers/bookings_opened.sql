-- Room freed for the waitlist by a cancellation or a move (slotwise_note_opening).
CREATE OR REPLACE TRIGGER bookings_opened AFTER UPDATE OF status, during, resource_id, joined_resource_ids
  ON bookings FOR EACH ROW EXECUTE FUNCTION slotwise_note_opening();
