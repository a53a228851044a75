import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { venueInHeader } from './subject.view.ts';

describe('venueInHeader', () => {
  it('removes encoded words, also those that removing another or a format character would make', () => {
    const word = `=?utf-8?b?${Buffer.from('Bank \u202egnp.exe').toString('base64')}?=`;
    assert.equal(venueInHeader(`${word} Bistro`), 'Bistro');
    assert.equal(venueInHeader('Bistro =?UTF-8?Q?=E2=80=AE?= Race'), 'Bistro Race');
    assert.equal(venueInHeader('=?utf-8?b?=?utf-8?b?QUJD?=QUJD?=Bistro'), 'Bistro');
    assert.equal(venueInHeader('=\u200b?utf-8?b?QUJD?= Bistro'), 'Bistro');
    assert.equal(venueInHeader('Bistro =?utf-8?b?QU JD?='), 'Bistro', 'a space inside does not save it');
  });

  it('removes format characters and turns control characters and line breaks into spaces', () => {
    assert.equal(venueInHeader('Bis\u200btro\u2066 \u202eRace\u202c\u2069'), 'Bistro Race');
    assert.equal(
      venueInHeader('Bistro\r\nBcc: x@evil.example\u0007\u2028Race'),
      'Bistro Bcc: x@evil.example Race',
    );
  });

  it('keeps question marks and equals signs that make no encoded word', () => {
    assert.equal(venueInHeader('Why? Because =) 2+2=4?'), 'Why? Because =) 2+2=4?');
  });
});
