-- Invitations prove control of the email: a membership is `invited` (it grants nothing) until the
-- person opens the emailed link, whose token is kept only as its SHA-256. Memberships made before
-- are active, as dated by their creation.
ALTER TABLE memberships
  ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('invited', 'active')),
  ADD COLUMN invited_at timestamptz,
  ADD COLUMN invite_token_hash text,
  ADD COLUMN invite_expires_at timestamptz;
UPDATE memberships SET invited_at = created_at;
ALTER TABLE memberships
  ALTER COLUMN status DROP DEFAULT,
  ALTER COLUMN invited_at SET NOT NULL,
  ALTER COLUMN invited_at SET DEFAULT now();
CREATE UNIQUE INDEX memberships_invite_token_key ON memberships (invite_token_hash)
  WHERE invite_token_hash IS NOT NULL;

-- Raised to end every session of the account at once: an access token carries the value it was
-- issued under and is refused once it differs.
ALTER TABLE users ADD COLUMN session_epoch integer NOT NULL DEFAULT 0;

-- Every refresh token descended from one login shares its family: a spent token presented again
-- revokes the whole family. Tokens issued before are each a family of their own.
ALTER TABLE refresh_tokens ADD COLUMN family_id uuid NOT NULL DEFAULT gen_random_uuid();
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_subject_idx ON refresh_tokens (subject_id) WHERE revoked_at IS NULL;

-- Failed logins are counted per email and client address (the lock) and per email alone (the
-- slowdown). Rows recorded before have no address: they count only towards the slowdown.
ALTER TABLE login_failures ADD COLUMN client_ip text;
