-- An invitation's password seeds only an account the invitation creates, and that membership
-- stays `invited` until the person joins, so the staff list never tells whether the email already
-- had an account. Signing in once with that first password joins it: the hash it was seeded with
-- is kept with the membership until then (the account's own may change meanwhile, through a link).
ALTER TABLE memberships ADD COLUMN seeded_password_hash text;
COMMENT ON COLUMN memberships.seeded_password_hash IS
  'The first password of the account this invitation created (Argon2id): signing in with it makes the membership active.';
COMMENT ON COLUMN memberships.status IS
  'invited grants nothing until the person joins: opens the emailed link, or signs in with the password the invitation gave a new account.';

-- Every invitation emailed (a re-sent one too), counted against the daily limits of its business
-- and of the developer owning it; also how the outbox tells an invitation from the business's
-- other mail. Kept per developer, across their businesses (docs/scaling.md: global).
CREATE TABLE invitation_sends (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  developer_id uuid NOT NULL REFERENCES developers (id),
  business_id uuid NOT NULL REFERENCES businesses (id),
  message_id uuid NOT NULL,
  sent_at timestamptz NOT NULL
);
CREATE INDEX invitation_sends_developer_idx ON invitation_sends (developer_id, sent_at);
CREATE INDEX invitation_sends_message_idx ON invitation_sends (message_id);
COMMENT ON TABLE invitation_sends IS 'One row per invitation emailed, for the daily limits (20 per business, 50 per developer).';
