import { readFileSync } from 'node:fs';
import { EN, pickLanguage, type Texts } from '../../widget/i18n.ts';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * The language of the hosted page: `?lang=`, then the browser's `Accept-Language` in its order of
 * preference, then English.
 */
export function hostedLanguage(query: string | undefined, acceptLanguage: string | undefined): string {
  const preferred = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', q] = part.trim().split(/\s*;\s*q=/);
      return { tag, q: q === undefined ? 1 : Number(q) };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((entry) => entry.tag);
  return pickLanguage(query, ...preferred);
}

const TEXTS = new URL('../../widget/texts/', import.meta.url);
const testModeTexts = new Map<string, string>([['en', EN.testMode]]);

/** The widget's own "test mode" text in `lang`, one of the widget's languages. */
function testModeText(lang: string): string {
  let text = testModeTexts.get(lang);
  if (text === undefined) {
    const texts = JSON.parse(readFileSync(new URL(`${lang}.json`, TEXTS), 'utf8')) as Partial<Texts>;
    text = texts.testMode ?? EN.testMode;
    testModeTexts.set(lang, text);
  }
  return text;
}

/**
 * Content-Security-Policy of the hosted page: its own script and API only. No `frame-ancestors`:
 * venues embed the page in an iframe on their own sites.
 */
export const HOSTED_PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'";

/**
 * A business's booking page: the widget, full page, with the business's default publishable key;
 * with `manage`, the guest's page of that booking (view, cancel). A sandbox's page says it is in
 * test mode: the widget shows it, and so does the page until the widget runs (or without scripts).
 */
export function hostedPage(
  business: { name: string; slug: string; is_sandbox: boolean },
  key: string,
  lang: string,
  manage?: string,
): string {
  const name = escapeHtml(business.name);
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name}</title>
<link rel="icon" href="data:,">
<style>
body { margin: 0; background: #f4f4f6; font-family: system-ui, sans-serif; }
main { max-width: 30rem; margin: 0 auto; padding: 1.5rem 1rem; }
slotwise-booking { max-width: none; }
.test-mode { background: #fff4e0; color: #6b3d00; border: 1px solid #a05a00; border-radius: 8px; padding: .5rem .75rem; font-weight: 600; }
</style>
<script src="/widget/v1/slotwise.js" defer></script>
</head>
<body>
<main aria-label="${name}">
<slotwise-booking business="${escapeHtml(business.slug)}" key="${escapeHtml(key)}" lang="${lang}" heading-level="1"${manage ? ` manage="${escapeHtml(manage)}"` : ''}>${business.is_sandbox ? `<p class="test-mode" role="status">${escapeHtml(testModeText(lang))}</p>` : ''}</slotwise-booking>
</main>
</body>
</html>
`;
}
