-- One person, several businesses: a dashboard user is one email with one password, and each
-- membership gives them a role in one business.
CREATE TABLE memberships (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  business_id uuid NOT NULL REFERENCES businesses (id),
  role text NOT NULL CHECK (role IN ('business_owner', 'staff_member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, business_id)
);
CREATE INDEX memberships_business_idx ON memberships (business_id, created_at, id);

-- Every user had exactly one business: it becomes their membership. The membership takes the
-- user's id, so the staff-list cursors handed out before this change still find their place.
INSERT INTO memberships (id, user_id, business_id, role, created_at)
  SELECT id, id, business_id, role, created_at FROM users;

-- A dashboard user's refresh token renews the session of the business it was issued for.
ALTER TABLE refresh_tokens ADD COLUMN business_id uuid REFERENCES businesses (id);
UPDATE refresh_tokens SET business_id = users.business_id
  FROM users
  WHERE refresh_tokens.subject_kind = 'user' AND refresh_tokens.subject_id = users.id;

-- Emails are kept in lower case: a business that invites `Ada@Example.com` must not see how
-- another business spelled the same person's email. Unique already, whatever the case.
UPDATE users SET email = lower(email);
ALTER TABLE users DROP COLUMN business_id, DROP COLUMN role;

-- Failed logins, in the database so that every API process counts the same ones: 10 for one
-- account within 15 minutes lock its logins for 15 minutes. `email` is in lower case and is
-- recorded whether or not such an account exists. Rows older than the window are deleted as
-- new failures come in.
CREATE TABLE login_failures (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_kind text NOT NULL CHECK (account_kind IN ('developer', 'user')),
  email text NOT NULL,
  failed_at timestamptz NOT NULL
);
CREATE INDEX login_failures_account_idx ON login_failures (account_kind, email, failed_at);
CREATE INDEX login_failures_failed_at_idx ON login_failures (failed_at);
