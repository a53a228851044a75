import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dataChanged, kindOfEvent, versionOf } from './changes.ts';

describe('the versions of the data screens show', () => {
  it('move only for the kinds that changed, and all of them when no kind is named', () => {
    const settings = versionOf('settings');
    const bookings = versionOf('bookings');
    dataChanged('bookings');
    assert.equal(versionOf('settings'), settings, 'a booking reloads no settings screen');
    assert.notEqual(versionOf('bookings'), bookings);
    const both = versionOf('bookings', 'settings');
    dataChanged('settings');
    assert.notEqual(versionOf('bookings', 'settings'), both, 'Today follows its tables too');
    const waitlist = versionOf('waitlist');
    dataChanged();
    assert.notEqual(versionOf('waitlist'), waitlist);
  });

  it("take a live event's kind from its type", () => {
    assert.equal(kindOfEvent('waitlist.created'), 'waitlist');
    for (const type of ['booking.created', 'booking.checked_in', 'block.imported', 'deposit.updated']) {
      assert.equal(kindOfEvent(type), 'bookings', type);
    }
  });
});
