import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hourCycleOf } from './clock.ts';

describe('engine/clock', () => {
  it('reads English on a 12-hour clock and the other languages on a 24-hour one, unless the venue says', () => {
    assert.equal(hourCycleOf('en', null), 'h12');
    assert.equal(hourCycleOf('en-GB', undefined), 'h12');
    for (const language of ['de', 'fr', 'nl', 'es']) assert.equal(hourCycleOf(language, null), 'h23');
    assert.equal(hourCycleOf('en', '24h'), 'h23');
    assert.equal(hourCycleOf('de', '12h'), 'h12');
  });
});
