import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createTestApp, eventually, TEST_JWT_SECRET, type TestContext } from '../../test/helpers.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import type { DB } from '../schema.ts';
import { PRESSURE_RETRY_AFTER_S } from './health.ts';
import { OutageWatch } from './outages.ts';

const PACKAGE_VERSION = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

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
      session: (fn) => fn({ db, runScript: async () => {} }),
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
        assert.equal(response.headers['api-version'], PACKAGE_VERSION);
      } finally {
        await broken.close();
      }
    });
  });
});

describe('GET /readyz with Redis', () => {
  describe('200', () => {
    it('answers when Redis does too', {
      skip: !process.env.TEST_REDIS_URL && 'TEST_REDIS_URL is not set',
    }, async () => {
      const withRedis = await createTestApp({ redisUrl: process.env.TEST_REDIS_URL });
      try {
        const response = await withRedis.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(response.statusCode, 200, response.body);
      } finally {
        await withRedis.close();
      }
    });
  });

  describe('503', () => {
    it('answers not_ready when the configured Redis does not answer', async () => {
      const withoutRedis = await createTestApp({ redisUrl: 'redis://127.0.0.1:1' });
      try {
        const response = await withoutRedis.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(response.statusCode, 503);
        assert.deepEqual(response.json(), {
          error: { code: 'not_ready', message: 'Redis is not reachable' },
        });
      } finally {
        await withoutRedis.close();
      }
    });
  });
});

describe('GET /readyz while shutting down', () => {
  describe('503', () => {
    it('answers not_ready so that load balancers stop sending, and closes the connection', async () => {
      ctx.app.stopping = true;
      try {
        const response = await ctx.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(response.statusCode, 503);
        assert.equal(response.json().error.message, 'the server is shutting down');
        assert.equal(response.headers.connection, 'close');
      } finally {
        ctx.app.stopping = false;
      }
    });
  });
});

describe('GET /livez', () => {
  describe('200', () => {
    it('answers while the event loop keeps up, without credentials', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/livez' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { status: 'ok' });
    });
  });

  describe('503', () => {
    it('answers service_unavailable with Retry-After under pressure, as every route but /healthz and /metrics', async () => {
      // Any heap is over a threshold of one byte: pressure from the first sample on.
      const pressed = await createTestApp({
        pressure: { maxEventLoopDelayMs: 0, maxHeapUsedBytes: 1, maxRssBytes: 0 },
      });
      try {
        await eventually(
          async () => (await pressed.app.inject({ method: 'GET', url: '/livez' })).statusCode === 503,
          'the first sample of the heap',
        );
        for (const url of ['/livez', '/readyz', '/v1/manage/resources', '/']) {
          const response = await pressed.app.inject({ method: 'GET', url });
          assert.equal(response.statusCode, 503, url);
          assert.deepEqual(response.json(), {
            error: { code: 'service_unavailable', message: 'the server is overloaded; retry later' },
          });
          assert.equal(response.headers['retry-after'], String(PRESSURE_RETRY_AFTER_S));
          assert.equal(response.headers['api-version'], PACKAGE_VERSION);
        }
        assert.equal((await pressed.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
        assert.equal((await pressed.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 200);
      } finally {
        await pressed.close();
      }
    });
  });
});

describe('GET /', () => {
  describe('200', () => {
    it('links to the API reference and the health routes, with the one version of package and API', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        name: 'Slotwise API',
        version: PACKAGE_VERSION,
        links: {
          docs: '/docs',
          openapi: '/openapi.json',
          health: '/healthz',
          liveness: '/livez',
          readiness: '/readyz',
        },
      });
      assert.equal(response.headers['api-version'], PACKAGE_VERSION);
      assert.equal(PACKAGE_VERSION, '2.0.0');
      for (const link of Object.values(response.json().links as Record<string, string>)) {
        const target = await ctx.app.inject({ method: 'GET', url: link });
        assert.equal(target.statusCode, 200, link);
      }
    });
  });
});
