import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addMonths, datesOf, instantInZone, monthTitle, slotTime, weekdayOf } from '../../widget/format.ts';
import { pickLanguage } from '../../widget/i18n.ts';

/** The widget's date helpers: venue dates and times stay as given, whatever zone runs them. */
describe('widget/format', () => {
  it('walks months across years and lists every day of one, leap days included', () => {
    assert.equal(addMonths('2026-12', 1), '2027-01');
    assert.equal(addMonths('2027-01', -1), '2026-12');
    assert.equal(datesOf('2028-02').length, 29);
    assert.deepEqual(datesOf('2026-11').slice(0, 2), ['2026-11-01', '2026-11-02']);
    assert.equal(datesOf('2026-11').at(-1), '2026-11-30');
    assert.equal(weekdayOf('2026-11-23'), 1);
  });

  it('formats wall times and dates as given, in the language asked for', () => {
    // 02:30 does not exist that night in Paris or Berlin: a slot's wall time is still shown as sent.
    assert.equal(slotTime('fr', '2026-03-29', '02:30'), '2:30');
    assert.equal(slotTime('en', '2026-11-23', '19:30'), '7:30 PM');
    assert.equal(monthTitle('de', '2026-12'), 'Dezember 2026');
  });

  it("reads times on the venue's clock when it sets one", () => {
    assert.equal(slotTime('en', '2026-11-23', '19:30', 'h23'), '19:30');
    assert.match(slotTime('de', '2026-11-23', '19:30', 'h12'), /^7:30\sPM$/);
    assert.match(instantInZone('en', 'Europe/Paris', '2026-11-24T19:00:00Z', 'h23'), / 20:00 /);
  });

  it("formats an instant in the venue's zone and names it", () => {
    assert.equal(
      instantInZone('fr', 'Europe/Paris', '2026-11-24T19:00:00Z'),
      'mardi 24 novembre 2026 à 20:00 UTC+1',
    );
    assert.match(instantInZone('en', 'America/New_York', '2026-11-24T19:00:00Z'), /2:00 PM EST$/);
  });

  it('picks the first supported language: attribute, page, browser, else English', () => {
    assert.equal(pickLanguage(null, 'nl-BE', 'de'), 'nl');
    assert.equal(pickLanguage('pt', '', 'ES-es'), 'es');
    assert.equal(pickLanguage(undefined, 'ja'), 'en');
  });
});
