// test lane: system
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { axeClean, browserSkipReason, launchBrowser } from '../browser.ts';

/**
 * The guest's confirmation email as a browser shows its HTML (the reviewed fixtures of
 * src/messages/render.test.ts): no axe violation, and nothing wider than a phone. Its pictures go
 * to /tmp/email-confirmation-*.png, and with UPDATE_FIXTURES=1 to docs/screenshots/.
 */
const skip = browserSkipReason();
const FIXTURES = new URL('../fixtures/messages/', import.meta.url);
const SCREENSHOTS =
  process.env.UPDATE_FIXTURES === '1'
    ? new URL('../../docs/screenshots/', import.meta.url).pathname
    : '/tmp/';

let browser: Browser;
before(async () => {
  if (!skip) browser = await launchBrowser();
});
after(async () => {
  if (!skip) await browser.close();
});

describe('the confirmation email in a browser', { skip }, () => {
  for (const language of ['en', 'de']) {
    it(`reads cleanly in ${language}, on a phone and on a desktop`, async () => {
      const html = readFileSync(new URL(`booking_confirmed.${language}.html`, FIXTURES), 'utf8');
      for (const [width, suffix] of [
        [375, '-phone'],
        [720, ''],
      ] as const) {
        const context = await browser.newContext({ viewport: { width, height: 800 } });
        try {
          const page = await context.newPage();
          await page.setContent(html);
          await axeClean(page, `${width} px`);
          const overflow = await page.evaluate<number>(
            'document.documentElement.scrollWidth - window.innerWidth',
          );
          assert.ok(overflow <= 0, `nothing wider than ${width} px (over by ${overflow})`);
          await page.screenshot({
            path: `${SCREENSHOTS}email-confirmation-${language}${suffix}.png`,
            fullPage: true,
          });
        } finally {
          await context.close();
        }
      }
    });
  }
});

describe('the accessibility check the browser tests share', { skip }, () => {
  it('fails on a violation in the page and in a frame, and passes a clean page', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.setContent('<html lang="en"><title>t</title><main><img src="data:,"></main></html>');
      await assert.rejects(axeClean(page, 'an image without text'), /image-alt/);
      await page.setContent(
        '<html lang="en"><title>t</title><main><iframe title="f" srcdoc="<html lang=en><title>f</title><img src=data:,>"></iframe></main></html>',
      );
      await page.frames()[1]!.waitForLoadState();
      await assert.rejects(axeClean(page, 'an image without text in a frame'), /image-alt: iframe img/);
      await page.setContent('<html lang="en"><title>t</title><main><h1>Fine</h1></main></html>');
      await axeClean(page, 'a clean page');
    } finally {
      await context.close();
    }
  });
});
