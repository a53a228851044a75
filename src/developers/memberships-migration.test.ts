import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { A_DEVELOPER, databaseBefore } from '../../test/migrations.ts';
import { migrate } from '../platform/migrate.ts';

const MEMBERSHIPS = '0006_memberships.sql';

describe('migration 0006: memberships', () => {
  const database = databaseBefore(MEMBERSHIPS);

  it("makes each existing user's business and role a membership, and keeps their sessions", async () => {
    const { rows } = await sql<{ user_id: string; business_id: string }>`
      WITH ${A_DEVELOPER}, business AS (
        INSERT INTO businesses (developer_id, name, slug) SELECT id, 'Café', 'cafe' FROM developer RETURNING id
      ), owner AS (
        INSERT INTO users (business_id, email, password_hash, role, created_at)
        SELECT id, 'Owner@Example.com', 'hash', 'business_owner', '2026-01-02T03:04:05Z' FROM business
        RETURNING id, business_id
      ), token AS (
        INSERT INTO refresh_tokens (token_hash, subject_kind, subject_id, expires_at)
        SELECT 'h', 'user', id, now() + interval '1 day' FROM owner
      )
      SELECT id AS user_id, business_id FROM owner`.execute(database().db);
    const owner = rows[0]!;
    await migrate(database());

    const memberships = await database().db.selectFrom('memberships').selectAll().execute();
    assert.equal(memberships.length, 1);
    assert.equal(memberships[0]!.user_id, owner.user_id);
    assert.equal(memberships[0]!.id, owner.user_id, 'old staff-list cursors still find their place');
    assert.equal(memberships[0]!.business_id, owner.business_id);
    assert.equal(memberships[0]!.role, 'business_owner');
    assert.equal(memberships[0]!.created_at.toISOString(), '2026-01-02T03:04:05.000Z');
    const user = await database().db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    assert.deepEqual(Object.keys(user).sort(), [
      'created_at',
      'email',
      'id',
      'password_hash',
      'session_epoch',
    ]);
    assert.equal(user.email, 'owner@example.com');
    const token = await database().db.selectFrom('refresh_tokens').selectAll().executeTakeFirstOrThrow();
    assert.equal(token.business_id, owner.business_id);

    await assert.rejects(
      database()
        .db.insertInto('memberships')
        .values({
          user_id: owner.user_id,
          business_id: owner.business_id,
          role: 'staff_member',
          status: 'active',
        })
        .execute(),
      (error: { code?: string }) => error.code === '23505',
      'one membership per user and business',
    );
  });
});
