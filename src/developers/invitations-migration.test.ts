import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { A_DEVELOPER, databaseBefore } from '../../test/migrations.ts';
import { migrate } from '../platform/migrate.ts';

const INVITATIONS = '0021_invitations_and_sessions.sql';

describe('migration 0021: invitations and sessions', () => {
  const database = databaseBefore(INVITATIONS);

  it('keeps existing memberships active, dated by their creation, and their sessions working', async () => {
    await sql`
      WITH ${A_DEVELOPER}, business AS (
        INSERT INTO businesses (developer_id, name, slug) SELECT id, 'Café', 'cafe' FROM developer RETURNING id
      ), owner AS (
        INSERT INTO users (email, password_hash) VALUES ('owner@example.com', 'hash') RETURNING id
      ), membership AS (
        INSERT INTO memberships (user_id, business_id, role, created_at)
        SELECT owner.id, business.id, 'business_owner', '2026-01-02T03:04:05Z' FROM owner, business
      )
      INSERT INTO refresh_tokens (token_hash, subject_kind, subject_id, business_id, expires_at)
      SELECT h, 'user', owner.id, business.id, now() + interval '1 day'
      FROM owner, business, (VALUES ('h1'), ('h2')) AS hashes (h)`.execute(database().db);
    await migrate(database());

    const membership = await database().db.selectFrom('memberships').selectAll().executeTakeFirstOrThrow();
    assert.equal(membership.status, 'active');
    assert.equal(membership.invited_at.toISOString(), '2026-01-02T03:04:05.000Z');
    assert.equal(membership.invite_token_hash, null);
    const user = await database().db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    assert.equal(user.session_epoch, 0, 'tokens issued before carry no epoch, which counts as 0');
    const tokens = await database().db.selectFrom('refresh_tokens').select('family_id').execute();
    assert.equal(
      new Set(tokens.map((t) => t.family_id)).size,
      2,
      'each earlier token is a family of its own',
    );
  });
});
