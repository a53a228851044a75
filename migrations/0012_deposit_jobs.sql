-- What the deposit and email jobs need beside migration 0010's tables.

-- `expires_at` is the deadline of a deposit still awaited: cleared once the money is in, the card
-- saved or the expiry handled, so the expiry job's queue is every row that still has one (a
-- declined payment leaves its booking waiting for a retry until then).
DROP INDEX deposits_expiry_idx;
CREATE INDEX deposits_expiry_idx ON deposits (expires_at) WHERE expires_at IS NOT NULL;

-- Money that arrives for a booking already cancelled (a guest paying after the expiry, a hold
-- placed on a cancelled booking) is given back by a job: refunded, or the hold released.
ALTER TABLE deposits ADD COLUMN reversal_due_at timestamptz;
CREATE INDEX deposits_reversal_due_idx ON deposits (reversal_due_at) WHERE reversal_due_at IS NOT NULL;

-- When an unsent message is tried next: a sender's claim keeps it from other processes for a
-- while, a failure backs off.
ALTER TABLE email_outbox ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now();
DROP INDEX email_outbox_unsent_idx;
CREATE INDEX email_outbox_unsent_idx ON email_outbox (next_attempt_at) WHERE sent_at IS NULL;
