import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestContext } from '../test/helpers.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(() => ctx.close());

/** The hooks of one route and method, by name, as Fastify lists them. */
function hooksOf(route: string, method: string): string {
  const lines = ctx.app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n');
  const at = lines.findIndex((line) =>
    line
      .trim()
      .replace(/^[│├└─\s]+/, '')
      .startsWith(`${route} (${method})`),
  );
  assert.notEqual(at, -1, `${method} ${route} is listed`);
  const hooks: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.includes('•')) break;
    hooks.push(line.trim());
  }
  return hooks.join('\n');
}

describe('hooks by route', () => {
  it('puts the idempotency hooks and the change announcement on writing routes only', () => {
    const read = hooksOf('v1/availability/:business_id', 'GET');
    for (const hook of ['claimHook', 'storeHook', 'announce', 'noStore']) {
      assert.ok(!read.includes(hook), `a GET carries no ${hook}:\n${read}`);
    }
    const write = hooksOf('v1/manage/resources', 'POST');
    for (const hook of ['claimHook', 'storeHook', 'announce']) {
      assert.ok(write.includes(hook), `a POST carries ${hook}:\n${write}`);
    }
    const login = hooksOf('v1/auth/login', 'POST');
    assert.ok(!login.includes('claimHook') && login.includes('announce'), login);
    assert.ok(hooksOf('v1/manage/api-keys', 'POST').includes('noStore'), 'a sensitive route says no-store');
  });
});
