import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { createTestApp, type TestContext } from '../../test/helpers.ts';
import { dashboardAssets } from './dashboard.bundle.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(async () => {
  await ctx.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url, headers });

/** One directive of the response's Content-Security-Policy, as sent. */
const directive = (response: { headers: Record<string, unknown> }, name: string) =>
  String(response.headers['content-security-policy'])
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.split(' ')[0] === name);

describe('GET /staff/', () => {
  it('is the HTML shell: own scripts only, never framed, nothing inline', async () => {
    const response = await get('/staff/');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(directive(response, 'script-src'), "script-src 'self'");
    assert.equal(directive(response, 'style-src'), "style-src 'self'");
    assert.equal(directive(response, 'frame-ancestors'), "frame-ancestors 'none'");
    assert.equal(response.headers['x-frame-options'], 'DENY');
    assert.equal(response.headers['cache-control'], 'no-cache');
    assert.match(response.body, /<script type="module" src="\/staff\/app\.js"><\/script>/);
    assert.match(response.body, /<link rel="stylesheet" href="\/staff\/app\.css">/);
    assert.doesNotMatch(response.body, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(response.body, /<style|\sstyle=/, 'no inline style');
  });

  it('preloads the modules a first visit needs, each of which is served', async () => {
    const response = await get('/staff/');
    const preloaded = [...response.body.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map(
      (match) => match[1]!,
    );
    assert.ok(
      preloaded.some((href) => /\/staff\/chunks\/today-screen-[\w-]+\.js$/.test(href)),
      preloaded.join(),
    );
    for (const href of preloaded) assert.equal((await get(href)).statusCode, 200, href);
  });

  it('is also at /staff, with no slash', async () => {
    const response = await get('/staff');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
  });
});

describe('the dashboard files', () => {
  it('serves app.js gzipped when accepted, plain otherwise, revalidated by ETag', async () => {
    const gzipped = await get('/staff/app.js', { 'accept-encoding': 'gzip, deflate' });
    assert.equal(gzipped.statusCode, 200);
    assert.equal(gzipped.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(gzipped.headers['cache-control'], 'no-cache');
    assert.equal(gzipped.headers['x-content-type-options'], 'nosniff');
    assert.equal(gzipped.headers.vary, 'Accept-Encoding');
    const plain = await get('/staff/app.js');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, gunzipSync(gzipped.rawPayload).toString());
    assert.equal(plain.headers.etag, gzipped.headers.etag);

    const again = await get('/staff/app.js', { 'if-none-match': String(gzipped.headers.etag) });
    assert.equal(again.statusCode, 304);
    assert.equal(again.rawPayload.length, 0);
  });

  it('serves the styles as CSS', async () => {
    const response = await get('/staff/app.css', { 'accept-encoding': 'gzip' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/css; charset=utf-8');
    assert.match(gunzipSync(response.rawPayload).toString(), /\.timeline\{/);
  });

  it('caches the chunks, named by their content, for good; an unknown one is 404', async () => {
    const { files } = await dashboardAssets();
    const chunk = [...files.keys()].find((file) => file.startsWith('chunks/'))!;
    const response = await get(`/staff/${chunk}`);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');

    const unknown = await get('/staff/chunks/nothing-ABCDEFGH.js');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'not_found');
    assert.equal((await get('/staff/chunks/..%2Fapp.js')).statusCode, 404);
  });

  it('keeps a first visit (shell, entry, styles, the Today screen) under 100 KB gzipped', async () => {
    const { initial } = await dashboardAssets();
    assert.ok(initial.includes('app.js') && initial.includes('app.css'), initial.join());
    let total = 0;
    for (const file of initial) {
      const response = await get(`/staff/${file}`, { 'accept-encoding': 'gzip' });
      assert.equal(response.statusCode, 200, file);
      total += response.rawPayload.length;
    }
    total += (await get('/staff/', { 'accept-encoding': 'gzip' })).rawPayload.length;
    assert.ok(total < 100 * 1024, `${total} bytes gzipped`);
    // The languages but English are left for later.
    assert.ok(!initial.some((file) => /^chunks\/(de|fr|nl|es)-/.test(file)), initial.join());
  });
});

describe('the dashboard texts', () => {
  it('has every English text in each language', async () => {
    const read = (lang: string) =>
      readFile(new URL(`../../dashboard/texts/${lang}.json`, import.meta.url), 'utf8').then(JSON.parse);
    const english = Object.keys(await read('en')).sort();
    for (const lang of ['de', 'fr', 'nl', 'es']) {
      assert.deepEqual(Object.keys(await read(lang)).sort(), english, lang);
    }
  });
});
