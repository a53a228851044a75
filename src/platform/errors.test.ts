import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyBaseLogger, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { createTenant, createTestApp, type TestContext } from '../../test/helpers.ts';
import { AppError } from './errors.ts';

const INTERNALS = 'relation "secret_internal_table" does not exist';

interface LogEntry {
  level: string;
  values: unknown[];
}

/** A logger that keeps what it is given, so a test can see at which level a failure was logged. */
function recordingLogger(entries: LogEntry[]): FastifyBaseLogger {
  const at =
    (level: string) =>
    (...values: unknown[]) => {
      entries.push({ level, values });
    };
  const logger = {
    level: 'trace',
    fatal: at('fatal'),
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    silent: () => {},
    child: () => logger,
  };
  return logger as unknown as FastifyBaseLogger;
}

const logged: LogEntry[] = [];

/** Casts the client's text in the database; each type refuses its own kind of bad value. */
const CASTS = {
  date: sql`date`,
  timestamptz: sql`timestamptz`,
  integer: sql`integer`,
  smallint: sql`smallint`,
};

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp({}, (app) => {
    app.get<{ Querystring: { type: keyof typeof CASTS; value: string } }>(
      '/test/cast',
      {
        onRequest: async (request) => {
          request.log = recordingLogger(logged);
        },
      },
      async (request) => {
        const { type, value } = request.query;
        await sql`SELECT ${value}::${CASTS[type]}`.execute(app.db);
        return { ok: true };
      },
    );
    app.get('/test/data-exception', async () => {
      throw Object.assign(new Error(`invalid parameter value ${INTERNALS}`), { code: '22023' });
    });
    app.get('/test/throws', async () => {
      throw new Error(INTERNALS);
    });
    app.get('/test/throws-with-status', async () => {
      throw Object.assign(new Error(INTERNALS), { statusCode: 503 });
    });
    app.get('/test/unique-violation', async () => {
      throw Object.assign(new Error(`duplicate key value violates unique constraint "x" ${INTERNALS}`), {
        code: '23505',
      });
    });
    app.get('/test/exclusion-violation', async () => {
      throw Object.assign(new Error(`conflicting key value violates exclusion constraint ${INTERNALS}`), {
        code: '23P01',
      });
    });
    app.get('/test/detail', async () => {
      throw new AppError('conflict', 'the booking has no held deposit', { detail: true });
    });
    app.post(
      '/test/echo',
      {
        schema: {
          body: Type.Object(
            {
              name: Type.String({ minLength: 1 }),
              nested: Type.Optional(
                Type.Object({ phone: Type.String({ minLength: 7 }) }, { additionalProperties: false }),
              ),
              rows: Type.Optional(Type.Array(Type.Object({ n: Type.Integer({ maximum: 6 }) }))),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => request.body,
    );
  });
});
after(() => ctx.close());

function assertHidesInternals(response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 500);
  assert.deepEqual(response.json(), {
    error: { code: 'internal_error', message: 'something went wrong on our side; try again' },
  });
  assert.doesNotMatch(response.body, /secret_internal_table|relation|stack|\.ts:\d+|at /);
}

const fieldsOf = (response: LightMyRequestResponse) =>
  response.json().error.fields.map((f: { field: string }) => f.field);

describe('the error handler', () => {
  describe('400', () => {
    it('answers a URL that cannot be decoded with bad_request and the usual headers', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/v1/manage/resources/%zz' });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), { error: { code: 'bad_request', message: 'the URL is malformed' } });
      assert.equal(response.headers['api-version'], '2.0.0');
      assert.ok(response.headers['x-request-id']);
    });

    it('answers malformed JSON with bad_request and no parser internals', async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/developer/register',
        headers: { 'content-type': 'application/json' },
        payload: '{"email": "a@example.com",',
      });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), { error: { code: 'bad_request', message: 'malformed JSON body' } });
    });

    it('answers a prototype-poisoning body with bad_request', async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/test/echo',
        headers: { 'content-type': 'application/json' },
        payload: '{"name": "x", "__proto__": {"admin": true}}',
      });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().error.code, 'bad_request');
    });
  });

  describe('404', () => {
    it('answers an unknown route with not_found naming it', async () => {
      for (const [method, url] of [
        ['GET', '/v1/nothing-here'],
        ['POST', '/v1/manage/business'],
        ['GET', '/v2/manage/business?x=1'],
      ] as const) {
        const response = await ctx.app.inject({ method, url });
        assert.equal(response.statusCode, 404, url);
        assert.equal(response.json().error.code, 'not_found');
        assert.match(response.json().error.message, new RegExp(`${method} ${url.split('?')[0]}`));
      }
    });

    it('answers a path id that is not a UUID with not_found', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await ctx.app.inject({
        method: 'DELETE',
        url: '/v1/manage/api-keys/12345',
        headers: tenant.headers,
      });
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().error.code, 'not_found');
      assert.equal(response.json().error.message, 'API key not found');
    });

    it('names the thing a malformed path id was meant to name', async () => {
      for (const [url, thing] of [
        ['/v1/availability/not-a-business', 'business'],
        ['/v1/public/hours/12345', 'business'],
        ['/v1/waitlist/x', 'business'],
      ] as const) {
        const response = await ctx.app.inject({
          method: url.startsWith('/v1/waitlist') ? 'POST' : 'GET',
          url,
          payload: url.startsWith('/v1/waitlist') ? {} : undefined,
        });
        assert.equal(response.statusCode, 404, url);
        assert.equal(response.json().error.message, `${thing} not found`, url);
      }
    });
  });

  describe('409', () => {
    it('turns a unique violation into conflict without the SQL', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/test/unique-violation' });
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().error.code, 'conflict');
      assert.doesNotMatch(response.body, /secret_internal_table|constraint/);
    });

    it('turns an exclusion violation into slot_unavailable without the SQL', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/test/exclusion-violation' });
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().error.code, 'slot_unavailable');
      assert.doesNotMatch(response.body, /secret_internal_table|constraint/);
    });

    it('answers {detail} beside the usual error where the contract says so', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/test/detail' });
      assert.equal(response.statusCode, 409);
      assert.deepEqual(response.json(), {
        detail: 'the booking has no held deposit',
        error: { code: 'conflict', message: 'the booking has no held deposit' },
      });
    });
  });

  describe('413', () => {
    it('refuses a body over the limit', async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/test/echo',
        payload: { name: 'x'.repeat(300 * 1024) },
      });
      assert.equal(response.statusCode, 413);
      assert.equal(response.json().error.code, 'payload_too_large');
    });
  });

  describe('415', () => {
    it('asks for JSON when the body is something else, plain text included', async () => {
      for (const [type, payload] of [
        ['application/xml', '<name>x</name>'],
        ['text/plain', 'name=x'],
      ]) {
        const response = await ctx.app.inject({
          method: 'POST',
          url: '/test/echo',
          headers: { 'content-type': type! },
          payload,
        });
        assert.equal(response.statusCode, 415, type);
        assert.equal(response.json().error.code, 'unsupported_media_type');
      }
    });
  });

  describe('422', () => {
    it('lists every failing field, unknown ones included, and names them in the message', async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/test/echo',
        payload: { nested: { phone: '12', fax: '1' }, rows: [{ n: 1 }, { n: 9 }], colour: 'red', size: 2 },
      });
      assert.equal(response.statusCode, 422);
      const { error } = response.json();
      assert.equal(error.code, 'validation_error');
      const expected = ['name', 'nested.phone', 'nested.fax', 'rows[1].n', 'colour', 'size'];
      assert.deepEqual([...fieldsOf(response)].sort(), [...expected].sort());
      for (const field of expected)
        assert.ok(error.message.includes(field), `${field} in "${error.message}"`);
      for (const row of error.fields) assert.equal(typeof row.message, 'string');
    });

    it('answers a JSON body that is not an object with validation_error', async () => {
      for (const payload of ['[]', '"text"', '42', 'null']) {
        const response = await ctx.app.inject({
          method: 'POST',
          url: '/test/echo',
          headers: { 'content-type': 'application/json' },
          payload,
        });
        assert.equal(response.statusCode, 422, payload);
        assert.equal(response.json().error.code, 'validation_error');
      }
    });

    it('treats an empty JSON body as no body', async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/test/echo',
        headers: { 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(response.statusCode, 422);
      assert.deepEqual(fieldsOf(response), ['body']);
    });

    it('turns a value the database refuses (SQLSTATE class 22) into validation_error, hiding its text', async () => {
      const refused = [
        ['date', '0000-01-01'],
        ['date', '2026-13-45'],
        ['timestamptz', '2026-01-01T99:99:99Z'],
        ['integer', 'twelve'],
        ['smallint', '99999'],
      ] as const;
      for (const [type, value] of refused) {
        logged.length = 0;
        const response = await ctx.app.inject({
          method: 'GET',
          url: `/test/cast?type=${type}&value=${encodeURIComponent(value)}`,
        });
        assert.equal(response.statusCode, 422, `${type} ${value}: ${response.body}`);
        assert.deepEqual(response.json(), {
          error: { code: 'validation_error', message: 'a value in the request is malformed or out of range' },
        });
        assert.deepEqual(
          logged.filter((entry) => entry.level === 'warn' || entry.level === 'error').map((e) => e.level),
          ['warn'],
          `${type} ${value} is logged once, at warn`,
        );
      }
      const synthetic = await ctx.app.inject({ method: 'GET', url: '/test/data-exception' });
      assert.equal(synthetic.statusCode, 422);
      assert.doesNotMatch(synthetic.body, /secret_internal_table|parameter/);
    });

    it('lets a value the database accepts through', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/test/cast?type=date&value=2026-02-28' });
      assert.equal(response.statusCode, 200, response.body);
    });

    it('answers a missing body with validation_error', async () => {
      const response = await ctx.app.inject({ method: 'POST', url: '/test/echo' });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().error.code, 'validation_error');
    });
  });

  describe('500', () => {
    it('hides the message, stack and SQL of an unexpected error', async () => {
      assertHidesInternals(await ctx.app.inject({ method: 'GET', url: '/test/throws' }));
    });

    it('hides an internal error that carries its own 5xx status', async () => {
      assertHidesInternals(await ctx.app.inject({ method: 'GET', url: '/test/throws-with-status' }));
    });
  });
});

describe('response headers', () => {
  it('carry API-Version 2.0.0 and x-request-id on successes and on every kind of error', async () => {
    const tenant = await createTenant(ctx.app);
    const responses = [
      await ctx.app.inject({ method: 'GET', url: '/healthz' }),
      await ctx.app.inject({ method: 'GET', url: '/v1/manage/business', headers: tenant.headers }),
      await ctx.app.inject({ method: 'GET', url: '/v1/manage/business' }),
      await ctx.app.inject({ method: 'GET', url: '/nowhere' }),
      await ctx.app.inject({ method: 'POST', url: '/test/echo', payload: {} }),
      await ctx.app.inject({
        method: 'POST',
        url: '/test/echo',
        headers: { 'content-type': 'application/json' },
        payload: '{',
      }),
      await ctx.app.inject({ method: 'GET', url: '/test/throws' }),
      await ctx.app.inject({ method: 'GET', url: '/openapi.json' }),
    ];
    const ids = new Set<string>();
    for (const response of responses) {
      assert.equal(response.headers['api-version'], '2.0.0', `${response.statusCode}`);
      const id = response.headers['x-request-id'];
      assert.equal(typeof id, 'string');
      ids.add(id as string);
    }
    assert.equal(ids.size, responses.length, 'each request gets its own id');
  });

  it("echo the caller's x-request-id when it is sensible, and replace it otherwise", async () => {
    const given = await ctx.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'trace-42.abc' },
    });
    assert.equal(given.headers['x-request-id'], 'trace-42.abc');
    const odd = await ctx.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'has spaces <script>' },
    });
    assert.match(String(odd.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });
});
