import { pickLanguage } from '../../widget/i18n.ts';

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

/**
 * Content-Security-Policy of the hosted page: its own script and API only. No `frame-ancestors`:
 * venues embed the page in an iframe on their own sites.
 */
export const HOSTED_PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'";

/**
 * A business's booking page: the widget, full page, with the business's default publishable key;
 * with `manage`, the guest's page of that booking (view, cancel).
 */
export function hostedPage(
  business: { name: string; slug: string },
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
</style>
<script src="/widget/v1/slotwise.js" defer></script>
</head>
<body>
<main aria-label="${name}">
<slotwise-booking business="${escapeHtml(business.slug)}" key="${escapeHtml(key)}" lang="${lang}" heading-level="1"${manage ? ` manage="${escapeHtml(manage)}"` : ''}></slotwise-booking>
</main>
</body>
</html>
`;
}
