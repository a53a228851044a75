import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createTestApp, TEST_JWT_SECRET, type TestContext } from '../../test/helpers.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import type { DB } from '../schema.ts';
import { OutageWatch } from './db.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(() => ctx.close());

/** An app whose database never answers: nothing listens on port 1. */
async function appWithoutDatabase() {
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({
      pool: new pg.Pool({
        connectionString: 'postgres://postgres@127.0.0.1:1/none',
        connectionTimeoutMillis: 2000,
      }),
    }),
  });
  const config = loadConfig({ JWT_SECRET: TEST_JWT_SECRET, DATABASE_URL: 'postgres://127.0.0.1:1/none' });
  const app = await buildApp({
    config,
    database: {
      db,
      engine: 'postgres',
      outages: new OutageWatch(),
      runScript: async () => {},
      listen: async () => async () => {},
      close: () => db.destroy(),
    },
  });
  const close = async () => {
    await app.close();
    await db.destroy();
  };
  return { app, close };
}

describe('GET /healthz', () => {
  describe('200', () => {
    it('answers while the process is up, without credentials', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { status: 'ok' });
    });

    it('answers even when the database is down', async () => {
      const broken = await appWithoutDatabase();
      try {
        const response = await broken.app.inject({ method: 'GET', url: '/healthz' });
        assert.equal(response.statusCode, 200);
      } finally {
        await broken.close();
      }
    });
  });
});

describe('GET /readyz', () => {
  describe('200', () => {
    it('answers when the database does', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { status: 'ready' });
    });
  });

  describe('503', () => {
    it('answers not_ready when the database does not, without saying why inside', async () => {
      const broken = await appWithoutDatabase();
      try {
        const response = await broken.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(response.statusCode, 503);
        assert.deepEqual(response.json(), {
          error: { code: 'not_ready', message: 'the database is not reachable' },
        });
        assert.equal(response.headers['api-version'], '2.0.0');
      } finally {
        await broken.close();
      }
    });
  });
});
