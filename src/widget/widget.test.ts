import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { createTenant, type Tenant, useTestApp } from '../../test/helpers.ts';
import { EN, LANGUAGES } from '../../widget/i18n.ts';
import { hostedLanguage } from './hosted.page.ts';

const ctx = useTestApp();

const SCRIPT = '/widget/v1/slotwise.js';
const get = (url: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url, headers });

/** One directive of the response's Content-Security-Policy, as sent. */
const directive = (response: { headers: Record<string, unknown> }, name: string) =>
  String(response.headers['content-security-policy'])
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.split(' ')[0] === name);

async function defaultKeyOf(tenant: Tenant): Promise<string> {
  const keys = await get('/v1/manage/api-keys', tenant.headers);
  const key = keys.json().items.find((k: { is_default: boolean }) => k.is_default);
  assert.ok(key, keys.body);
  return key.key;
}

describe(`GET ${SCRIPT}`, () => {
  describe('200', () => {
    it('serves the element gzipped, under 13 KB, cached for five minutes', async () => {
      const response = await get(SCRIPT, { 'accept-encoding': 'br, gzip;q=0.8' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(response.headers['content-encoding'], 'gzip');
      assert.equal(response.headers['cache-control'], 'public, max-age=300');
      assert.equal(response.headers.vary, 'Accept-Encoding');
      assert.ok(response.rawPayload.length < 13 * 1024, `${response.rawPayload.length} bytes gzipped`);
      const js = gunzipSync(response.rawPayload).toString();
      assert.match(js, /customElements\.define\("slotwise-booking"/);
    });

    it('serves it plain to a client that takes no gzip, with the same ETag', async () => {
      const plain = await get(SCRIPT);
      const gzipped = await get(SCRIPT, { 'accept-encoding': 'gzip' });
      assert.equal(plain.statusCode, 200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.body, gunzipSync(gzipped.rawPayload).toString());
      assert.equal(plain.headers.etag, gzipped.headers.etag);
    });
  });

  describe('304', () => {
    it('answers an unchanged ETag without a body', async () => {
      const { etag } = (await get(SCRIPT)).headers;
      const again = await get(SCRIPT, { 'if-none-match': `W/${etag}` });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.equal(again.headers['cache-control'], 'public, max-age=300');
    });
  });
});

describe('GET /widget/v1/texts/{file}', () => {
  /** The text files the script names, by language. */
  async function textFiles(): Promise<Record<string, string>> {
    const script = (await get(SCRIPT)).body;
    const names = [...script.matchAll(/"?([a-z]{2})"?:"(\1\.[\w-]{16}\.json)"/g)];
    return Object.fromEntries(names.map(([, lang, file]) => [lang, file]));
  }

  describe('200', () => {
    it('serves every language but English, with the same texts as English, cached for good', async () => {
      const files = await textFiles();
      assert.deepEqual(Object.keys(files).sort(), LANGUAGES.filter((lang) => lang !== 'en').sort());
      for (const file of Object.values(files)) {
        const response = await get(`/widget/v1/texts/${file}`, { 'accept-encoding': 'gzip' });
        assert.equal(response.statusCode, 200, file);
        assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
        assert.equal(response.headers['access-control-allow-origin'], '*');
        const texts = JSON.parse(gunzipSync(response.rawPayload).toString());
        assert.deepEqual(Object.keys(texts).sort(), Object.keys(EN).sort(), file);
        for (const [name, text] of Object.entries(texts)) {
          assert.ok(typeof text === 'string' && text.length > 0, `${file}: ${name}`);
          const placeholders = (value: string) => value.match(/\{\w+\}/g) ?? [];
          assert.deepEqual(
            placeholders(text as string),
            placeholders(EN[name as keyof typeof EN]),
            `${file}: ${name}`,
          );
        }
      }
    });
  });

  describe('404', () => {
    it('answers not_found for a file of no current texts', async () => {
      const response = await get('/widget/v1/texts/fr.AAAAAAAAAAAAAAAA.json');
      assert.equal(response.statusCode, 404, response.body);
      assert.equal(response.json().error.code, 'not_found');
    });
  });
});

describe('GET /book/{slug}', () => {
  describe('200', () => {
    it("is the widget full page with the business's own default publishable key", async () => {
      const tenant = await createTenant(ctx.app, { name: 'Chez <Page> & Co' });
      const other = await createTenant(ctx.app, { name: 'Elsewhere' });
      const response = await get(`/book/${tenant.slug.toUpperCase()}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(response.headers['x-frame-options'], undefined);
      assert.match(String(response.headers['content-security-policy']), /script-src 'self'/);
      // The venue's logo may be kept on any https site; nothing else may be loaded from one.
      assert.equal(directive(response, 'img-src'), "img-src 'self' data: https:");
      assert.equal(directive(response, 'connect-src'), "connect-src 'self'");
      const key = await defaultKeyOf(tenant);
      assert.match(key, /^svc_pk_live_/);
      assert.ok(response.body.includes(`business="${tenant.slug}" key="${key}"`), response.body);
      assert.match(response.body, /<slotwise-booking [^>]* show-venue[ >]/, "the venue's header is shown");
      assert.ok(!response.body.includes(await defaultKeyOf(other)));
      assert.ok(response.body.includes('<title>Chez &lt;Page&gt; &amp; Co</title>'));
      assert.ok(response.body.includes('<script src="/widget/v1/slotwise.js" defer></script>'));
    });

    it("shows a sandbox business's page in test mode, in the page's language, and no live business's", async () => {
      const sandbox = await createTenant(ctx.app, { name: 'Try Me', is_dev: true });
      const live = await createTenant(ctx.app, { name: 'For Real' });
      const page = await get(`/book/${sandbox.slug}?lang=de`);
      assert.equal(page.statusCode, 200, page.body);
      assert.match(page.body, /<p class="test-mode" role="status">Testmodus: [^<]+<\/p><\/slotwise-booking>/);
      const livePage = await get(`/book/${live.slug}`);
      assert.doesNotMatch(livePage.body, /role="status"/);
    });

    it('has the widget show a test mode banner for a sandbox business', async () => {
      const script = (await get(SCRIPT)).body;
      assert.match(script, /is_sandbox/);
      assert.ok(script.includes(EN.testMode), 'the English banner text is in the script');
    });

    it("may be framed only by its own origin and the origins of the business's active publishable keys", async () => {
      const tenant = await createTenant(ctx.app);
      const other = await createTenant(ctx.app);
      const publishable = async (owner: Tenant, origins: string[]) => {
        const response = await ctx.app.inject({
          method: 'POST',
          url: '/v1/manage/api-keys',
          headers: owner.headers,
          payload: { name: 'site', type: 'publishable', allowed_origins: origins },
        });
        assert.equal(response.statusCode, 201, response.body);
        return response.json() as { id: string };
      };
      const alone = await get(`/book/${tenant.slug}`);
      assert.equal(directive(alone, 'frame-ancestors'), "frame-ancestors 'self'");
      assert.ok(!alone.body.includes('parent-origins'), 'no origin hears of a booking');

      await publishable(tenant, ['https://shop.example', 'http://localhost:5173']);
      await publishable(tenant, ['https://Shop.Example:443/', 'https://menu.example']);
      const revoked = await publishable(tenant, ['https://old.example']);
      const revoke = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/api-keys/${revoked.id}`,
        headers: tenant.headers,
      });
      assert.equal(revoke.statusCode, 204, revoke.body);
      await publishable(other, ['https://elsewhere.example']);

      const response = await get(`/book/${tenant.slug}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(
        directive(response, 'frame-ancestors'),
        "frame-ancestors 'self' http://localhost:5173 https://menu.example https://shop.example",
      );
      assert.ok(
        response.body.includes(
          'parent-origins="http://localhost:5173 https://menu.example https://shop.example"',
        ),
        response.body,
      );
    });

    it('speaks the language asked for, else the browser’s first supported one', async () => {
      const tenant = await createTenant(ctx.app);
      const cases: [string, Record<string, string>, string][] = [
        ['?lang=fr', { 'accept-language': 'de' }, 'fr'],
        ['', { 'accept-language': 'pt-BR, nl;q=0.9, de;q=0.8' }, 'nl'],
        ['?lang=xx', {}, 'en'],
      ];
      for (const [query, headers, lang] of cases) {
        const response = await get(`/book/${tenant.slug}${query}`, headers);
        assert.equal(response.statusCode, 200, response.body);
        assert.match(response.body, new RegExp(`<html lang="${lang}">`));
        assert.match(response.body, new RegExp(`lang="${lang}" heading-level="1"`));
      }
    });

    it('serves a new page once the default key is rotated', async () => {
      const tenant = await createTenant(ctx.app);
      const keys = await get('/v1/manage/api-keys', tenant.headers);
      const { id, key } = keys.json().items.find((k: { is_default: boolean }) => k.is_default);
      const rotated = await ctx.app.inject({
        method: 'POST',
        url: `/v1/manage/api-keys/${id}/rotate`,
        headers: tenant.headers,
      });
      assert.equal(rotated.statusCode, 201, rotated.body);
      const page = await get(`/book/${tenant.slug}`);
      assert.ok(page.body.includes(`key="${rotated.json().key}"`));
      assert.ok(!page.body.includes(key));
    });
  });

  describe('404', () => {
    it('answers not_found for an unknown slug', async () => {
      const response = await get('/book/no-such-place');
      assert.equal(response.statusCode, 404, response.body);
      assert.equal(response.json().error.code, 'not_found');
    });

    it('answers a browser an HTML page in its language, framable by no other site', async () => {
      const response = await get('/book/no-such-place', {
        accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
        'accept-language': 'fr',
      });
      assert.equal(response.statusCode, 404, response.body);
      assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(directive(response, 'frame-ancestors'), "frame-ancestors 'self'");
      assert.match(response.body, /^<!doctype html>/);
      assert.match(response.body, /<html lang="fr">/);
      assert.ok(!response.body.includes('no-such-place'), 'the slug is not echoed');
      assert.ok(!response.body.includes('<script'), response.body);
    });
  });

  describe('422', () => {
    it('refuses a language tag longer than any', async () => {
      const tenant = await createTenant(ctx.app);
      const response = await get(`/book/${tenant.slug}?lang=${'x'.repeat(36)}`);
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().error.code, 'validation_error');
    });
  });
});

describe('hostedLanguage', () => {
  it('weighs Accept-Language by q and skips q=0', () => {
    assert.equal(hostedLanguage(undefined, 'fr;q=0, es;q=0.5, de;q=0.7'), 'de');
    assert.equal(hostedLanguage(undefined, undefined), 'en');
  });
});
