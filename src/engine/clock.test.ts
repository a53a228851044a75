import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hourCycleOf, readTime } from './clock.ts';

describe('engine/clock', () => {
  it('reads English on a 12-hour clock and the other languages on a 24-hour one, unless the venue says', () => {
    assert.equal(hourCycleOf('en', null), 'h12');
    assert.equal(hourCycleOf('en-GB', undefined), 'h12');
    for (const language of ['de', 'fr', 'nl', 'es']) assert.equal(hourCycleOf(language, null), 'h23');
    assert.equal(hourCycleOf('en', '24h'), 'h23');
    assert.equal(hourCycleOf('de', '12h'), 'h12');
  });
});

describe('readTime', () => {
  it('reads a time typed on either clock, in any of the dashboard languages', () => {
    const cases: [string, string][] = [
      ['19:30', '19:30'],
      ['7:05', '07:05'],
      ['1930', '19:30'],
      ['930', '09:30'],
      ['19', '19:00'],
      ['0', '00:00'],
      ['19.30', '19:30'],
      ['19 h 30', '19:30'],
      ['19h', '19:00'],
      ['7:30 PM', '19:30'],
      ['7:30\u202fPM', '19:30'],
      ['7pm', '19:00'],
      ['7 p.m.', '19:00'],
      ['7:30 p. m.', '19:30'],
      ['12:15 AM', '00:15'],
      ['12 pm', '12:00'],
      ['11:59 pm', '23:59'],
      [' 8:00 am ', '08:00'],
      ['23:59', '23:59'],
    ];
    for (const [typed, time] of cases) assert.equal(readTime(typed), time, typed);
  });

  it('reads no time from what names none', () => {
    for (const typed of [
      '',
      'soon',
      '24:00',
      '19:60',
      '13 pm',
      '0 am',
      '7:3',
      '19:30:00',
      '123456',
      'pm',
      '-1',
    ])
      assert.equal(readTime(typed), null, typed);
  });
});
