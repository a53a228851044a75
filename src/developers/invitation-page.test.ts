import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { createTenant, uniqueEmail, useTestApp } from '../../test/helpers.ts';

const ctx = useTestApp();

const PASSWORD = 'staff password 123';
const HTML_NAME = `Chez <b>"Nord"</b> & 'Co'`;

/** Invites a new person by link; answers their email, id and the link's token from the outbox. */
async function invited(name = 'Chez Test', role: 'business_owner' | 'staff_member' = 'staff_member') {
  const tenant = await createTenant(ctx.app, { name });
  const email = uniqueEmail(role);
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/v1/manage/staff',
    headers: tenant.headers,
    payload: { email, role },
  });
  assert.equal(response.statusCode, 201, response.body);
  const message = await ctx.app.db
    .selectFrom('message_outbox')
    .select('body_text')
    .where('to_address', '=', email)
    .executeTakeFirstOrThrow();
  const token = /\/staff\/accept\?token=([A-Za-z0-9_]+)/.exec(message.body_text ?? '')![1]!;
  return { tenant, email, id: response.json().id as string, token };
}

const page = (query: string) => ctx.app.inject({ method: 'GET', url: `/staff/accept${query}` });
const accept = (token: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/v1/auth/invitations/accept',
    payload: { token, password: PASSWORD },
  });

const FORM = /<form[^>]*id="accept"/;
const GONE = 'This invitation link does not work any more';

/** The content of the page's one `<style>` element. */
const styleOf = (html: string) => /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;

function assertPageHeaders(response: Awaited<ReturnType<typeof page>>) {
  assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.equal(response.headers['referrer-policy'], 'no-referrer');
  assert.equal(response.headers['x-robots-tag'], 'noindex, nofollow');
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  assert.equal(response.headers['x-frame-options'], 'DENY');
  const csp = String(response.headers['content-security-policy']);
  const directives = new Map(
    csp.split(';').map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name!, values.join(' ')];
    }),
  );
  assert.equal(directives.get('default-src'), "'none'");
  assert.equal(directives.get('script-src'), "'self'");
  assert.equal(directives.get('connect-src'), "'self'");
  assert.equal(directives.get('form-action'), "'none'");
  assert.equal(directives.get('frame-ancestors'), "'none'");
  assert.equal(directives.get('base-uri'), "'none'");
  assert.ok(!csp.includes('unsafe-inline'), csp);
  const styleHash = createHash('sha256').update(styleOf(response.body)).digest('base64');
  assert.equal(directives.get('style-src'), `'sha256-${styleHash}'`);
}

describe('GET /staff/accept', () => {
  describe('200', () => {
    it('serves the form of a working link: the business, the role and the account, no index, no referrer, no cache, no framing', async () => {
      const { email, token } = await invited('Café Nord', 'business_owner');
      const response = await page(`?token=${token}`);
      assert.equal(response.statusCode, 200, response.body);
      assertPageHeaders(response);
      const html = response.body;
      assert.match(html, /<meta name="robots" content="noindex, nofollow">/);
      assert.match(html, /<meta name="referrer" content="no-referrer">/);
      assert.match(html, /<h1[^>]*>Join Café Nord on Slotwise<\/h1>/);
      assert.ok(html.includes('as an owner'), html);
      assert.ok(html.includes(email), html);
      assert.match(html, FORM);
      // Without the script, the form goes nowhere (and CSP's form-action forbids it): never a GET with the password.
      const form = /<form[^>]*>/.exec(html)![0];
      assert.match(form, /method="post"/);
      assert.doesNotMatch(form, /action=/);
      const passwords = html.match(/<input[^>]*type="password"[^>]*>/g) ?? [];
      assert.equal(passwords.length, 2);
      for (const input of passwords) {
        assert.match(input, /autocomplete="new-password"/);
        assert.match(input, /minlength="10"/);
        const id = /id="([^"]+)"/.exec(input)![1];
        assert.match(html, new RegExp(`<label for="${id}">`), `${id} has a label`);
      }
      assert.ok(html.includes('At least 10 characters'), 'the password rule is shown');
      assert.match(html, /<script src="\/staff\/accept\.js" defer><\/script>/);
      assert.equal((html.match(/<script/g) ?? []).length, 1, 'no inline script');
      assert.ok(!html.includes(token), 'the page does not repeat the token');
    });

    it('escapes the business name and says staff member for that role', async () => {
      const { token } = await invited(HTML_NAME);
      const response = await page(`?token=${token}`);
      assert.equal(response.statusCode, 200);
      const escaped = 'Chez &lt;b&gt;&quot;Nord&quot;&lt;/b&gt; &amp; &#39;Co&#39;';
      assert.ok(response.body.includes(`<title>Join ${escaped} on Slotwise</title>`), response.body);
      assert.ok(response.body.includes(`Join ${escaped} on Slotwise</h1>`));
      assert.ok(!response.body.includes('<b>'), 'no markup of the name reaches the page');
      assert.ok(response.body.includes('as a staff member'));
    });

    it('tolerates what mail programs add to a link', async () => {
      const { token } = await invited();
      const response = await page(`?token=${token}&utm_source=newsletter`);
      assert.equal(response.statusCode, 200);
      assert.match(response.body, FORM);
    });

    it('says a used, re-sent, withdrawn, expired, unknown or missing link does not work, without a form', async () => {
      const used = await invited();
      assert.equal((await accept(used.token)).statusCode, 200);
      const resent = await invited();
      const resend = await ctx.app.inject({
        method: 'POST',
        url: `/v1/manage/staff/${resent.id}/resend`,
        headers: resent.tenant.headers,
      });
      assert.equal(resend.statusCode, 200);
      const withdrawn = await invited();
      const removal = await ctx.app.inject({
        method: 'DELETE',
        url: `/v1/manage/staff/${withdrawn.id}`,
        headers: withdrawn.tenant.headers,
      });
      assert.equal(removal.statusCode, 204);
      for (const query of [
        `?token=${used.token}`,
        `?token=${resent.token}`,
        `?token=${withdrawn.token}`,
        `?token=${used.token.slice(0, -1)}x`,
        '?token=',
        '',
        `?token=${'x'.repeat(500)}`,
      ]) {
        const response = await page(query);
        assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
        assertPageHeaders(response);
        assert.ok(response.body.includes(GONE), query);
        assert.ok(response.body.includes('Ask the business that invited you to send a new one'), query);
        assert.doesNotMatch(response.body, FORM, query);
        assert.ok(!response.body.includes('Chez Test'), `${query}: nothing of the invitation is told`);
      }
    });

    it('says a link older than 7 days does not work', async () => {
      const { token } = await invited();
      const sent = Date.now();
      try {
        ctx.app.clock.now = () => sent + 7 * 86_400_000 + 60_000;
        const response = await page(`?token=${token}`);
        assert.ok(response.body.includes(GONE));
        assert.doesNotMatch(response.body, FORM);
      } finally {
        ctx.app.clock.now = () => Date.now();
      }
    });

    it('documents a bound on the token and answers a longer one with the page, looking nothing up', async () => {
      const document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const [parameter] = document.paths['/staff/accept'].get.parameters;
      assert.equal(parameter.name, 'token');
      assert.equal(parameter.schema.maxLength, 200);
      const response = await page(`?token=${'x'.repeat(201)}`);
      assert.equal(response.statusCode, 200);
      assert.ok(response.body.includes(GONE));
    });

    it('never repeats what was sent in its place', async () => {
      const response = await page(`?token=${encodeURIComponent('<script>alert(1)</script>')}`);
      assert.equal(response.statusCode, 200);
      assert.ok(!response.body.includes('alert(1)'));
    });
  });
});

describe('GET /staff/accept.js', () => {
  describe('200', () => {
    it("serves the form's script: it posts the link's token and the password as JSON to the accept route", async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/staff/accept.js' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['cache-control'], 'no-cache');
      assert.ok(response.body.includes("'/v1/auth/invitations/accept'"));
      assert.ok(response.body.includes("get('token')"));
      const etag = response.headers.etag as string;
      assert.match(etag, /^"[\w-]+"$/);
      const again = await ctx.app.inject({
        method: 'GET',
        url: '/staff/accept.js',
        headers: { 'if-none-match': etag },
      });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
    });
  });
});
