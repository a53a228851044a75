-- Plans and subscription state. `subscription_plan_id` is `trial` while the trial runs, else one of
-- the plans of src/billing/plans.ts. A cancelled paid subscription keeps its plan until the end of
-- the period it was paid for.
ALTER TABLE developers
  ADD COLUMN current_period_ends_at timestamptz,
  ADD CONSTRAINT developers_plan_check
    CHECK (subscription_plan_id IN ('trial', 'free', 'starter', 'pro', 'premium'));

-- Bookings created per developer and calendar month (UTC), counted in the booking's transaction.
-- The row is the quota's judge: an increment only succeeds below the quota, and concurrent
-- bookings of one developer queue on the row for the instant before they commit.
CREATE TABLE booking_usage (
  developer_id uuid NOT NULL REFERENCES developers (id),
  month date NOT NULL,
  bookings integer NOT NULL CHECK (bookings >= 0),
  PRIMARY KEY (developer_id, month)
);

-- A verified key remembers its developer's subscription: any change to it must drop the key.
DROP TRIGGER developers_changed ON developers;
CREATE TRIGGER developers_changed
  AFTER UPDATE OF subscription_status, subscription_plan_id, trial_ends_at, current_period_ends_at OR DELETE
  ON developers
  FOR EACH ROW EXECUTE FUNCTION notify_change('keys', 'id');
