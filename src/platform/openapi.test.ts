import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createTestApp, type TestContext } from '../../test/helpers.ts';
import { requestValidators } from './validation.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(() => ctx.close());

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  requestBody?: { content: Record<string, { schema: object; example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
}
type OpenApi = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

const openApi = async () => (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApi;

/** Every operation of the document as `METHOD /path` with its operation object. */
const operationsOf = (spec: OpenApi) =>
  Object.entries(spec.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      route: `${method.toUpperCase()} ${path}`,
      operation,
    })),
  );

/** The request validator the app itself uses, on a schema of the document. */
const validatorOf = (schema: object) =>
  (requestValidators()({}) as unknown as (route: object) => (value: unknown) => boolean)({
    schema,
    httpPart: 'body',
    method: 'POST',
    url: '/',
  });

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

describe('GET /openapi.json, for client generators', () => {
  describe('200', () => {
    it('gives every operation an operationId, unique and camelCase', async () => {
      const operations = operationsOf(await openApi());
      const ids = operations.map(({ route, operation }) => {
        assert.match(operation.operationId ?? '', /^[a-z][a-zA-Z]+$/, `${route} has a camelCase operationId`);
        return operation.operationId;
      });
      assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
      const byRoute = new Map(operations.map(({ route, operation }) => [route, operation.operationId]));
      assert.equal(byRoute.get('POST /v1/bookings'), 'createBooking');
      assert.equal(byRoute.get('GET /v1/availability/{business_id}'), 'getAvailability');
    });

    it('gives every request body an example that its own schema accepts', async () => {
      const operations = operationsOf(await openApi()).filter(({ operation }) => operation.requestBody);
      assert.ok(operations.length >= 30, `found the bodies: ${operations.length}`);
      for (const { route, operation } of operations) {
        for (const [type, media] of Object.entries(operation.requestBody!.content)) {
          assert.notEqual(media.example, undefined, `${route} ${type} has an example`);
          const validate = validatorOf(media.schema) as ((value: unknown) => boolean) & { errors?: unknown };
          assert.ok(validate(structuredClone(media.example)), `${route}: ${JSON.stringify(validate.errors)}`);
        }
      }
    });

    it('names the error body Error and requires error.code and error.message in it', async () => {
      const spec = await openApi();
      const schema = { ...spec.components.schemas.Error, $id: undefined };
      const validate = validatorOf(schema);
      assert.equal(validate({}), false, 'an empty object is no error body');
      assert.equal(validate({ error: { code: 'not_found' } }), false, 'the message is required');
      assert.equal(validate({ error: { message: 'booking not found' } }), false, 'the code is required');
      assert.equal(validate({ error: { code: 'not_found', message: 'booking not found' } }), true);
      const created = spec.paths['/v1/bookings']!.post!;
      assert.equal(
        created.responses?.['409']?.content?.['application/json']?.schema.$ref,
        '#/components/schemas/Error',
      );
      assert.deepEqual(
        Object.keys(spec.components.schemas).filter((name) => /^def-\d+$/.test(name)),
        [],
        'every component has a name of its own',
      );
    });

    it('documents only the errors a route can give: 402 where a plan or a past-due subscription refuses, 413 where a body can be too large', async () => {
      const spec = await openApi();
      const statusesOf = (method: string, path: string) =>
        Object.keys(spec.paths[path]?.[method]?.responses ?? {}).filter((status) => status >= '400');
      for (const [method, path] of [
        ['get', '/healthz'],
        ['post', '/v1/auth/developer/register'],
        ['post', '/v1/auth/developer/login'],
        ['post', '/v1/auth/refresh'],
        ['post', '/v1/auth/login'],
        ['post', '/v1/auth/switch'],
        ['get', '/v1/manage/subscription'],
        ['post', '/v1/developer/billing/checkout'],
        ['post', '/v1/developer/billing/portal'],
        ['post', '/webhooks/payments'],
        ['get', '/v1/sandbox/availability'],
        ['post', '/v1/sandbox/bookings'],
      ] as const) {
        assert.ok(!statusesOf(method, path).includes('402'), `${method} ${path} has no 402`);
      }
      for (const [method, path] of [
        ['post', '/v1/bookings'],
        ['post', '/v1/dynamic/bookings'],
        ['patch', '/v1/manage/settings'],
        ['get', '/v1/availability/{business_id}'],
      ] as const) {
        assert.ok(statusesOf(method, path).includes('402'), `${method} ${path} has 402`);
      }
      assert.deepEqual(statusesOf('get', '/healthz'), ['500']);
      assert.deepEqual(statusesOf('get', '/readyz'), ['500', '503']);
      assert.deepEqual(statusesOf('get', '/v1/manage/settings'), ['401', '402', '403', '429', '500']);
      for (const { route, operation } of operationsOf(spec)) {
        const statuses = Object.keys(operation.responses ?? {});
        if (operation.requestBody) {
          for (const status of ['400', '413', '415', '422']) {
            assert.ok(statuses.includes(status), `${route} takes a body: documents ${status}`);
          }
        }
        if (route.startsWith('GET') || route.startsWith('DELETE')) {
          assert.ok(!statuses.includes('413'), `${route} takes no body: no 413`);
        }
        if (route.includes('{')) assert.ok(statuses.includes('404'), `${route} names an id: documents 404`);
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
      assert.match(response.body, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
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

    it('works over plain http from another machine: no upgrade to https, nothing allowed from outside', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/docs' });
      assert.equal(response.statusCode, 200);
      const policy = String(response.headers['content-security-policy']);
      assert.match(policy, /default-src 'self'/);
      assert.doesNotMatch(policy, /upgrade-insecure-requests/);
      assert.doesNotMatch(policy, /https:|validator\.swagger\.io/, 'no source outside the server');
      assert.equal(response.headers['strict-transport-security'], undefined);
      const initializer = await ctx.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
      assert.equal(initializer.statusCode, 200);
      assert.match(initializer.body, /validatorUrl: null/);
    });

    it('sends "Try it out" to the server it was loaded from, unless PUBLIC_BASE_URL names one', async () => {
      const spec = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      assert.deepEqual(spec.servers, [{ url: '/', 'x-internal': false }]);
      const named = await createTestApp({ publicBaseUrl: 'https://api.example.com' });
      try {
        const documented = (await named.app.inject({ method: 'GET', url: '/openapi.json' })).json();
        assert.deepEqual(documented.servers, [{ url: 'https://api.example.com', 'x-internal': false }]);
      } finally {
        await named.close();
      }
    });
  });
});

describe('rate-limit headers in the reference', () => {
  const headerRefs = (response: { headers?: Record<string, { $ref?: string }> }) =>
    Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, header]) => [name, header.$ref]));

  it('refers every response of a limited route to the shared headers, and the 429 to Retry-After', async () => {
    const spec = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApi & {
      components: { headers: Record<string, object> };
    };
    assert.deepEqual(Object.keys(spec.components.headers).sort(), [
      'Access-Control-Allow-Origin',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
    ]);
    const responses = spec.paths['/v1/bookings']!.post!.responses as Record<
      string,
      { headers?: Record<string, { $ref?: string }> }
    >;
    const shared = {
      'Access-Control-Allow-Origin': '#/components/headers/Access-Control-Allow-Origin',
      'RateLimit-Limit': '#/components/headers/RateLimit-Limit',
      'RateLimit-Remaining': '#/components/headers/RateLimit-Remaining',
      'RateLimit-Reset': '#/components/headers/RateLimit-Reset',
    };
    assert.deepEqual(headerRefs(responses['201']!), shared);
    assert.deepEqual(headerRefs(responses['429']!), {
      ...shared,
      'Retry-After': '#/components/headers/Retry-After',
    });
    assert.ok(responses['500'], 'every route documents the 500 of the error handler');
  });

  it('gives none to a route that is never limited', async () => {
    const spec = await openApi();
    const responses = spec.paths['/webhooks/payments']!.post!.responses!;
    assert.equal(responses['429'], undefined);
    for (const response of Object.values(responses)) {
      assert.deepEqual(headerRefs(response as { headers?: Record<string, { $ref?: string }> }), {});
    }
  });

  it('answers with the headers it documents', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/v1/sandbox/resources' });
    assert.equal(response.statusCode, 200);
    for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
      assert.ok(response.headers[name] !== undefined, name);
    }
  });
});
