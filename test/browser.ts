import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import axeCore from 'axe-core';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * Browser tests drive Debian's `chromium` (no browser download): `.ci/run` installs it. Outside CI
 * a machine without it skips them with this reason; in CI (`CI=true`) its absence fails them.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Where the tests' pictures go: the tracked `docs/screenshots/` only with `UPDATE_SCREENSHOTS=1`
 * (look at them, then commit them), else a temporary folder of this process, so that a test run
 * leaves the clone as it was.
 */
const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url))
    : mkdtempSync(join(tmpdir(), 'slotwise-screenshots-'));

/**
 * How long a test waits for a change to reach an open dashboard by the live stream. Nothing but
 * the stream reloads a screen, so a longer wait proves no less, and a busy machine (two suites at
 * once, CI) has taken more than 2 s.
 */
export const LIVE_WITHIN_MS = 10_000;

/** The path of the picture `name` (`dashboard-today-phone.png`). */
export const screenshotPath = (name: string): string => join(SCREENSHOTS, name);

export function browserSkipReason(): string | false {
  if (existsSync(CHROMIUM)) return false;
  const reason = `no browser at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true') throw new Error(`CI needs the browser tests: ${reason}`);
  return reason;
}

const startChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

/**
 * The browser lane's files (test/browser-lane-1.ts, -2.ts) share one chromium, started by the
 * first of them: a launch costs each file a second or two of CPU.
 */
let sharedBrowser: Promise<Browser> | undefined;
let sharingBrowser = false;

/** Makes the test files of this process share one browser; answers the function that closes it. */
export function shareOneBrowser(): () => Promise<void> {
  sharingBrowser = true;
  return async () => {
    sharingBrowser = false;
    const started = sharedBrowser;
    sharedBrowser = undefined;
    if (started) await (await started).close();
  };
}

/**
 * A test file's browser: a chromium of its own, or in a browser lane the lane's one, whose
 * `close()` closes the contexts the file opened and leaves the browser to the next file.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!sharingBrowser) return startChromium();
  sharedBrowser ??= startChromium();
  const browser = await sharedBrowser;
  const opened = new Set<BrowserContext>();
  const newContext: Browser['newContext'] = async (options) => {
    const context = await browser.newContext(options);
    opened.add(context);
    context.once('close', () => opened.delete(context));
    return context;
  };
  const borrowed: Partial<Browser> = {
    newContext,
    newPage: async (options) => (await newContext(options)).newPage(),
    close: async () => {
      await Promise.all([...opened].map((context) => context.close()));
    },
  };
  return new Proxy(browser, {
    get(target, property) {
      if (Object.hasOwn(borrowed, property)) return borrowed[property as keyof Browser];
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export interface HostSite {
  origin: string;
  pages: Map<string, string>;
  close(): Promise<void>;
}

export async function startHostSite(): Promise<HostSite> {
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const page = pages.get(new URL(request.url ?? '/', 'http://host').pathname);
    response.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // `localhost` rather than 127.0.0.1: a different origin from the API's even on one machine.
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pages,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The focused element's accessible label (its aria-label, its <label>, else its text), looking
 * through open shadow roots. A string: it runs in the page, where the DOM is.
 */
const FOCUSED_LABEL = `(() => {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  if (!active) return '';
  const root = active.getRootNode();
  const label = active.getAttribute('aria-label')
    ?? (active.id ? root.querySelector('label[for="' + active.id + '"]')?.textContent : null)
    ?? active.textContent;
  return (label ?? '').trim();
})()`;

export const focusedLabel = (page: Page) => page.evaluate<string>(FOCUSED_LABEL);

/**
 * Moves the focus with the Tab key alone until the focused element's label matches, as a
 * keyboard user would; fails after `limit` presses.
 */
export async function tabTo(page: Page, wanted: RegExp, limit = 60): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const label = await focusedLabel(page);
    if (wanted.test(label)) return;
    seen.push(label);
  }
  throw new Error(`Tab never reached ${wanted}; focused in turn: ${seen.join(' | ')}`);
}

/**
 * Waits until `expression` holds in the page. Read by the driver on each try: the polling of
 * `waitForFunction` runs as the page's own script, which a page whose policy forbids eval refuses
 * whenever the first try is false.
 */
export async function untilInPage(page: Page, expression: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) assert.fail(`${expression} did not hold within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** The text of the file that `click` makes the page download. */
export async function downloaded(page: Page, click: () => Promise<void>): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), click()]);
  return readFile((await file.path())!, 'utf8');
}

interface AxeViolation {
  id: string;
  nodes: Array<{ target: unknown[] }>;
}

/**
 * Fails on any axe violation of the page as it is now, in every frame. axe-core is injected once
 * per document and kept there: `@axe-core/playwright` sends its half megabyte into every frame at
 * every check and finishes each in a new blank page, 1 to 2 s a check where this takes 0.1 s. A
 * document rewritten in place (`page.setContent`) loses axe's listeners with its root element, so
 * axe is injected again there. Frames of other origins answer the top frame's axe, as axe's legacy
 * mode allows.
 */
export async function axeClean(page: Page, where: string) {
  for (const frame of page.frames()) {
    const present = await frame
      .evaluate('window.axe?.injectedInto === document.documentElement')
      .catch(() => true);
    if (present) continue;
    await frame.evaluate(
      `${axeCore.source};axe.configure({ allowedOrigins: ['<unsafe_all_origins>'] });axe.injectedInto = document.documentElement`,
    );
  }
  const { violations } = await page.evaluate<{ violations: AxeViolation[] }>(
    "axe.run(document, { resultTypes: ['violations'] })",
  );
  assert.deepEqual(
    violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `axe at ${where}`,
  );
}

/** Signs in on the staff dashboard's form as a person would: the email finds the account. */
/** The sign-in form's words in the languages tests sign in with. */
const SIGN_IN_WORDS = {
  en: { email: 'Email', password: 'Password', button: 'Sign in' },
  de: { email: 'E-Mail', password: 'Passwort', button: 'Anmelden' },
};

export async function signIn(
  page: Page,
  email: string,
  password: string,
  lang: keyof typeof SIGN_IN_WORDS = 'en',
) {
  const words = SIGN_IN_WORDS[lang];
  await page.getByLabel(words.email).fill(email);
  await page.getByLabel(words.password).fill(password);
  await page.getByRole('button', { name: words.button }).click();
}
