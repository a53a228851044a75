import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createTestApp, type TestContext } from '../../test/helpers.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(() => ctx.close());

interface Operation {
  tags?: string[];
  summary?: string;
  responses?: Record<string, unknown>;
}
type OpenApi = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
};

const normalise = (path: string) => (path.length > 1 ? path.replace(/\/$/, '') : path);

/** Every method and path the app serves, read from Fastify's route tree (`/a/:id` -> `/a/{id}`). */
function servedRoutes(app: FastifyInstance): string[] {
  const routes = new Set<string>();
  const segments: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^((?:│ {3}| {4})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!node) continue;
    segments.length = node[1]!.length / 4;
    segments.push(node[2]!);
    const path = normalise(segments.join('').replace(/:(\w+)/g, '{$1}'));
    for (const method of node[3]?.split(', ') ?? []) {
      if (method !== 'HEAD') routes.add(`${method} ${path}`);
    }
  }
  return [...routes];
}

describe('GET /openapi.json', () => {
  describe('200', () => {
    it('is OpenAPI 3.1 of interface version 2.0.0', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
      assert.equal(response.statusCode, 200);
      const spec = response.json() as OpenApi;
      assert.equal(spec.openapi, '3.1.0');
      assert.equal(spec.info.version, '2.0.0');
    });

    it('lists every route the app serves, each with tags, a summary and a success response', async () => {
      const spec = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApi;
      const documented = new Set<string>();
      for (const [path, operations] of Object.entries(spec.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const route = `${method.toUpperCase()} ${normalise(path)}`;
          documented.add(route);
          assert.ok(operation.tags?.length, `${route} has tags`);
          assert.ok(operation.summary, `${route} has a summary`);
          assert.ok(
            Object.keys(operation.responses ?? {}).some((status) => /^2\d\d$/.test(status)),
            `${route} documents its success response`,
          );
        }
      }
      // `OPTIONS *` answers CORS preflights (@fastify/cors), which are no operation of the API.
      const served = servedRoutes(ctx.app).filter(
        (route) => !route.includes(' /docs') && route !== 'GET /openapi.json' && route !== 'OPTIONS *',
      );
      assert.ok(served.length >= 18, `found the routes: ${served}`);
      const missing = served.filter((route) => !documented.has(route));
      assert.deepEqual(missing, [], 'every served route is documented');
      for (const route of [
        'GET /healthz',
        'GET /readyz',
        'POST /v1/auth/developer/register',
        'POST /v1/auth/developer/login',
        'POST /v1/auth/refresh',
        'POST /v1/auth/login',
        'POST /v1/developer/businesses',
        'GET /v1/developer/businesses',
        'GET /v1/manage/staff',
        'POST /v1/manage/staff',
        'PATCH /v1/manage/staff/{user_id}',
        'DELETE /v1/manage/staff/{user_id}',
        'POST /v1/manage/api-keys',
        'GET /v1/manage/api-keys',
        'DELETE /v1/manage/api-keys/{key_id}',
        'GET /v1/manage/business',
        'GET /v1/manage/restaurant',
        'GET /v1/manage/audit-logs',
      ]) {
        assert.ok(documented.has(route), route);
      }
    });
  });
});

describe('GET /docs', () => {
  describe('200', () => {
    it('serves an HTML reference that loads nothing from another host', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/docs' });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.doesNotMatch(response.body, /https?:\/\//i, 'no absolute URL in the page');
      assert.doesNotMatch(response.body, /(src|href)=["']\/\//i, 'no protocol-relative URL in the page');
      const assets = [...response.body.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map((m) => m[1]!);
      assert.ok(assets.length > 0);
      for (const asset of assets) {
        const loaded = await ctx.app.inject({
          method: 'GET',
          url: new URL(asset, 'http://local/docs/').pathname,
        });
        assert.equal(loaded.statusCode, 200, asset);
      }
    });
  });
});
