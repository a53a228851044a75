import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { slugify } from '../developers/developers.service.ts';
import type { TimeFormat } from '../engine/clock.ts';
import { NOTIFICATION_LANGUAGES, type NotificationLanguage } from '../schema.ts';
import { SMS_MAX_CHARS, SMS_TYPES, smsText } from './sms-texts.view.ts';

const BASE = 'https://bookings.slotwise.example';

const sms = (
  language: NotificationLanguage,
  venueName: string,
  type = SMS_TYPES[0]!,
  timeFormat: TimeFormat | null = null,
) => {
  const code = 'K7M2Q9XB';
  return smsText({
    type,
    language,
    venueName,
    timezone: 'Europe/Berlin',
    timeFormat,
    // 19:30 in Berlin (summer time), 17:30 UTC.
    startsAt: '2027-07-03T17:30:00.000Z',
    party: 12,
    code,
    link: `${BASE}/book/${slugify(venueName)}-12?manage=${code}`,
  });
};

describe('SMS texts', () => {
  it('fit one SMS in every language, a long venue name cut to the room left', () => {
    const long = 'Le Restaurant Gastronomique du Vieux Port et de la Grande Plage de Marseille-Provence';
    for (const language of NOTIFICATION_LANGUAGES) {
      for (const type of SMS_TYPES) {
        const text = sms(language, long, type);
        assert.ok([...text].length <= SMS_MAX_CHARS, `${language} ${type}: ${[...text].length} ${text}`);
        assert.match(text, /^Le[^:]*…: /, text);
        assert.ok(text.endsWith(`/book/${slugify(long)}-12?manage=K7M2Q9XB`), text);
        assert.match(text, language === 'en' ? /7:30 PM/ : /19:30/, text);
      }
    }
  });

  it('name the venue, date and time in its zone and language, party, code and link', () => {
    assert.equal(
      sms('en', 'Chez Test'),
      `Chez Test: confirmed Jul 3, 7:30 PM, 12 ppl, Code K7M2Q9XB ${BASE}/book/chez-test-12?manage=K7M2Q9XB`,
    );
    assert.equal(
      sms('de', 'Chez Test', 'booking_reminder'),
      `Chez Test: Erinnerung 3. Juli, 19:30, 12 Pers., Code K7M2Q9XB ${BASE}/book/chez-test-12?manage=K7M2Q9XB`,
    );
    assert.match(sms('fr', 'Chez Test'), /^Chez Test: confirmé 3 juil\., 19:30, 12 pers\., Code K7M2Q9XB /);
    assert.match(sms('nl', 'Chez Test'), /^Chez Test: bevestigd 3 jul, 19:30, 12 pers\., Code K7M2Q9XB /);
    assert.match(sms('es', 'Chez Test'), /^Chez Test: confirmada 3 jul, 19:30, 12 pers\., Código K7M2Q9XB /);
  });

  it("read the time on the venue's clock: its time_format, else its language's", () => {
    assert.match(sms('en', 'Chez Test', 'booking_reminder', '24h'), /^Chez Test: reminder Jul 3, 19:30, /);
    assert.match(
      sms('de', 'Chez Test', 'booking_reminder', '12h'),
      /^Chez Test: Erinnerung 3\. Juli, 7:30 PM, /,
    );
    assert.match(
      sms('fr', 'Chez Test', 'booking_confirmed', '12h'),
      /^Chez Test: confirmé 3 juil\., 7:30 PM, /,
    );
  });

  it('keep a venue name on one line', () => {
    assert.match(sms('en', 'Line\none\u202e  two'), /^Line one two: /);
  });
});
