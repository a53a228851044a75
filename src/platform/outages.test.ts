import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DatabaseUnavailableError, OutageWatch } from './outages.ts';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** A watch and what its listener heard, in order. */
function watched() {
  const heard: string[] = [];
  const watch = new OutageWatch();
  watch.watch({
    began: (outage) => heard.push(`began ${outage}`),
    ended: (outage, failures) => heard.push(`ended ${outage} after ${failures}`),
  });
  return { watch, heard };
}

describe('OutageWatch', () => {
  it('hears one outage however many queries fail, and its end at the next connection', () => {
    const { watch, heard } = watched();
    assert.equal(watch.failed(refused()), 'unreachable');
    assert.equal(watch.failed(refused()), 'unreachable');
    watch.reachable(Date.now() + 1);
    assert.deepEqual(heard, ['began unreachable', 'ended unreachable after 2']);
  });

  it('takes no connection begun before the outage as the end of it', () => {
    const { watch, heard } = watched();
    const begunBefore = Date.now() - 1;
    watch.failed(refused());
    // Its handshake finished just as the server went: the outage goes on.
    watch.reachable(begunBefore);
    watch.failed(refused());
    watch.reachable(Date.now() + 1);
    assert.deepEqual(heard, ['began unreachable', 'ended unreachable after 2']);
  });

  it('takes a connection asked for before the server came back, and refused late, for no new outage', () => {
    const { watch, heard } = watched();
    const askedBefore = Date.now() - 1;
    watch.failed(refused());
    watch.reachable(Date.now() + 1);
    const late = new DatabaseUnavailableError('unreachable', 'could not connect', refused(), askedBefore);
    assert.equal(watch.failed(late), 'unreachable');
    assert.deepEqual(heard, ['began unreachable', 'ended unreachable after 1']);
    const askedSince = new DatabaseUnavailableError(
      'unreachable',
      'could not connect',
      refused(),
      Date.now() + 1,
    );
    watch.failed(askedSince);
    assert.deepEqual(heard, ['began unreachable', 'ended unreachable after 1', 'began unreachable']);
  });

  it('leaves a query error of its own out of any outage', () => {
    const { watch, heard } = watched();
    assert.equal(watch.failed(Object.assign(new Error('syntax error'), { code: '42601' })), null);
    watch.reachable(Date.now());
    assert.deepEqual(heard, []);
  });
});
