import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { Receiver } from './receiver.fixture.ts';

describe('the test receiver', () => {
  it('forgets a request the last test sent that it reads only after the reset', async () => {
    const receiver = await Receiver.start();
    try {
      receiver.answer = () => 'hang';
      const body = JSON.stringify({ id: 'msg_1', type: 'booking.created' });
      // Written to the kernel and cut off, as a delivery past its timeout is; nothing polled since.
      const sent = request(receiver.url, {
        method: 'POST',
        agent: false,
        headers: { 'content-length': String(Buffer.byteLength(body)) },
      });
      sent.on('error', () => {});
      await new Promise<void>((resolve) => sent.end(body, () => resolve()));
      sent.destroy();
      await receiver.reset();
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(receiver.types(), []);
    } finally {
      await receiver.close();
    }
  });
});
