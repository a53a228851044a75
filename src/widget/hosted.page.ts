import { readFileSync } from 'node:fs';
import { EN, pickLanguage, type Texts } from '../../widget/i18n.ts';
import { escapeHtml } from '../engine/html.ts';

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
 * Images from any https origin: the venue's logo is wherever the venue keeps it (`logo_url`, an
 * https URL). An image runs no script, and the page sends nothing but the request for it.
 */
const BASE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data: https:; base-uri 'none'; form-action 'none'";

/**
 * Content-Security-Policy of the hosted page: its own script and API only, framed only by its own
 * origin and `frameOrigins` (the business's publishable keys' origins), so no other site can
 * overlay it and no other site is told of its bookings.
 */
export function hostedPageCsp(frameOrigins: string[]): string {
  return `${BASE_CSP}; frame-ancestors ${["'self'", ...frameOrigins].join(' ')}`;
}

/**
 * A business's booking page: the widget, full page, with the business's default publishable key,
 * under the venue's header (logo, description, contact, booking policy: the widget's `show-venue`);
 * with `manage`, the guest's page of that booking (view, cancel); with `service`, a booking of that
 * service (a class's times with their places left). A sandbox's page says it is in
 * test mode: the widget shows it, and so does the page until the widget runs (or without scripts).
 * Framed by one of `parentOrigins`, the widget posts its events to that origin alone.
 */
export function hostedPage(
  business: { name: string; slug: string; is_sandbox: boolean },
  key: string,
  lang: string,
  manage?: string,
  parentOrigins: string[] = [],
  service?: string,
): string {
  const name = escapeHtml(business.name);
  const parents = parentOrigins.join(' ');
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
<slotwise-booking business="${escapeHtml(business.slug)}" key="${escapeHtml(key)}" lang="${lang}" heading-level="1" show-venue${manage ? ` manage="${escapeHtml(manage)}"` : ''}${service ? ` service="${escapeHtml(service)}"` : ''}${parents ? ` parent-origins="${escapeHtml(parents)}"` : ''}>${business.is_sandbox ? `<p class="test-mode" role="status">${escapeHtml(testModeText(lang))}</p>` : ''}</slotwise-booking>
</main>
</body>
</html>
`;
}

const NOT_FOUND_TEXTS: Record<string, { title: string; text: string }> = {
  en: { title: 'Page not found', text: 'There is no booking page at this address.' },
  de: { title: 'Seite nicht gefunden', text: 'Unter dieser Adresse gibt es keine Buchungsseite.' },
  fr: { title: 'Page introuvable', text: "Il n'y a pas de page de réservation à cette adresse." },
  nl: { title: 'Pagina niet gevonden', text: 'Op dit adres staat geen boekingspagina.' },
  es: { title: 'Página no encontrada', text: 'No hay ninguna página de reservas en esta dirección.' },
};

/** What a browser is shown for a booking page that does not exist; the address is not repeated. */
export function notFoundPage(lang: string): string {
  const { title, text } = NOT_FOUND_TEXTS[lang] ?? NOT_FOUND_TEXTS.en!;
  return `<!doctype html>
<html lang="${NOT_FOUND_TEXTS[lang] ? lang : 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style>
body { margin: 0; background: #f4f4f6; font-family: system-ui, sans-serif; }
main { max-width: 30rem; margin: 0 auto; padding: 1.5rem 1rem; }
</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(text)}</p>
</main>
</body>
</html>
`;
}
