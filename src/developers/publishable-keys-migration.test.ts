import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { A_DEVELOPER, databaseBefore } from '../../test/migrations.ts';
import { sha256 } from '../platform/auth.ts';
import { migrate } from '../platform/migrate.ts';

const PUBLISHABLE_KEYS = '0014_publishable_keys.sql';

describe('migration 0014: publishable keys', () => {
  const database = databaseBefore(PUBLISHABLE_KEYS);

  it('gives every existing business a default publishable key stored as the app stores keys', async () => {
    await sql`
      WITH ${A_DEVELOPER}
      INSERT INTO businesses (developer_id, name, slug, is_dev)
      SELECT id, name, slug, is_dev FROM developer,
        (VALUES ('Live', 'live', false), ('Other', 'other', false), ('Sandbox', 'sandbox', true)) AS b (name, slug, is_dev)
    `.execute(database().db);
    await migrate(database());

    const keys = await database()
      .db.selectFrom('api_keys')
      .innerJoin('businesses', 'businesses.id', 'api_keys.business_id')
      .select([
        'businesses.slug',
        'api_keys.public_key',
        'api_keys.key_hash',
        'api_keys.lookup',
        'api_keys.prefix',
      ])
      .select([
        'api_keys.type',
        'api_keys.is_default',
        'api_keys.is_active',
        'api_keys.scopes',
        'api_keys.allowed_origins',
      ])
      .orderBy('businesses.slug')
      .execute();
    assert.deepEqual(
      keys.map((key) => key.slug),
      ['live', 'other', 'sandbox'],
    );
    for (const key of keys) {
      const full = key.public_key!;
      assert.match(
        full,
        key.slug === 'sandbox' ? /^svc_pk_test_[A-Za-z0-9]{40}$/ : /^svc_pk_live_[A-Za-z0-9]{40}$/,
      );
      assert.equal(key.key_hash, sha256(full));
      assert.equal(key.lookup, full.slice(0, 20));
      assert.equal(key.prefix, full.slice(0, 16));
      assert.equal(key.type, 'publishable');
      assert.equal(key.is_default, true);
      assert.equal(key.is_active, true);
      assert.deepEqual(key.scopes, []);
      assert.deepEqual(key.allowed_origins, []);
    }
    assert.notEqual(keys[0]!.public_key!.slice(12), keys[1]!.public_key!.slice(12), 'each key is drawn anew');
  });
});
