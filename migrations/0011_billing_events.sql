-- The processor's events may arrive in any order and more than once. A developer keeps the creation
-- time of the last subscription event applied, a connected account the time its state was last
-- learnt (from an event or by asking the processor): anything older is ignored.
ALTER TABLE developers ADD COLUMN subscription_event_at timestamptz;
ALTER TABLE connected_accounts ADD COLUMN synced_at timestamptz;
