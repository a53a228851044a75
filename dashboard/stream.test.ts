import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually } from '../test/helpers.ts';
import { type LiveEvent, openStream, type SseMessage, type StreamState, sseParser } from './stream.ts';

const parse = (...chunks: string[]) => {
  const messages: SseMessage[] = [];
  const feed = sseParser((message) => messages.push(message));
  for (const chunk of chunks) feed(chunk);
  return messages;
};

describe('sseParser', () => {
  it('joins chunks cut mid-line and mid-field', () => {
    assert.deepEqual(parse('id: 7\nev', 'ent: booking.cre', 'ated\ndata: {"a"', ':1}\n', '\n'), [
      { event: 'booking.created', data: '{"a":1}', id: '7' },
    ]);
  });

  it('joins multi-line data with line feeds and takes CRLF, CR and LF, even a CRLF cut in two', () => {
    assert.deepEqual(parse('data: one\r', '\ndata: two\rdata:three\n\r', '\n'), [
      { event: 'message', data: 'one\ntwo\nthree', id: undefined },
    ]);
  });

  it('skips comments (the heartbeat) and messages without data', () => {
    assert.deepEqual(parse(': ping\n\n', 'event: lonely\n\n', ': ping\nevent: ready\ndata: {}\n\n'), [
      { event: 'ready', data: '{}', id: undefined },
    ]);
  });

  it('dispatches nothing before the blank line that ends a message', () => {
    assert.deepEqual(parse('event: ready\ndata: {}\n'), []);
  });
});

/** A response whose body is the given SSE text, then ends. */
const sse = (text: string) =>
  new Response(new Blob([text]).stream(), { status: 200, headers: { 'content-type': 'text/event-stream' } });

describe('openStream', () => {
  it('reconnects with a fresh token after a refusal and after the stream ends, and says when to reload', async () => {
    const tokens: string[] = [];
    const states: StreamState[] = [];
    const events: LiveEvent[] = [];
    const answers = [
      () => new Response('{"error":{"code":"invalid_token"}}', { status: 401 }),
      () =>
        sse(
          'event: ready\ndata: {}\n\n: ping\n\nid: 2\nevent: booking.created\ndata: {"type":"booking.created","id":"b1","business_id":"x","at":"t"}\n\n',
        ),
      () => sse('event: ready\ndata: {}\n\n'),
    ];
    const seen: Request[] = [];
    let n = 0;
    const stream = openStream({
      baseUrl: 'https://api.example/',
      token: () => `token-${tokens.push('asked')}`,
      businessId: 'x',
      onEvent: (event) => events.push(event),
      onState: (state) => states.push(state),
      backoff: { firstMs: 1, maxMs: 5 },
      fetch: async (input, init) => {
        seen.push(new Request(input, init));
        return (answers[n++] ?? (() => sse('')))();
      },
    });
    await eventually(() => states.filter((s) => s === 'open').length === 2, 'two openings');
    stream.close();
    assert.deepEqual(states.slice(0, 5), ['connecting', 'reconnecting', 'open', 'reconnecting', 'open']);
    assert.equal(states.at(-1), 'closed');
    assert.deepEqual(
      events.map((e) => e.id),
      ['b1'],
    );
    assert.equal(seen[0]!.url, 'https://api.example/v1/manage/stream');
    assert.equal(seen[0]!.headers.get('authorization'), 'Bearer token-1');
    assert.equal(seen[1]!.headers.get('authorization'), 'Bearer token-2');
    assert.equal(seen[0]!.headers.get('x-business-id'), 'x');
  });

  it('gives up on a refusal no retry can change', async () => {
    const states: [StreamState, number | undefined][] = [];
    let calls = 0;
    openStream({
      baseUrl: 'https://api.example',
      token: () => 'key',
      onEvent: () => {},
      onState: (state, status) => states.push([state, status]),
      backoff: { firstMs: 1, maxMs: 1 },
      fetch: async () => {
        calls++;
        return new Response('{}', { status: 403 });
      },
    });
    await eventually(() => states.some(([state]) => state === 'closed'), 'the stream to close');
    assert.deepEqual(states, [
      ['connecting', undefined],
      ['closed', 403],
    ]);
    assert.equal(calls, 1);
  });
});
