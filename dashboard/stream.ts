/**
 * The dashboard's live updates: `GET /v1/manage/stream` read with `fetch` (an `EventSource`
 * cannot send the `Authorization` header, and a token never goes in a URL), parsed as
 * Server-Sent Events, reconnected with backoff and a fresh token whenever it ends.
 *
 * The server replays nothing: each time the state becomes `open` (the first time and after every
 * reconnection), the page reloads what it shows, then applies the events as they come.
 */

/** One change, as the server sends it: ids and types only. */
export interface LiveEvent {
  type: string;
  id: string;
  business_id: string;
  booking_date?: string;
  booking_id?: string;
  at: string;
}

export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/**
 * A Server-Sent Events parser fed text as it arrives, cut anywhere (mid-line, between `\r` and
 * `\n`). Comments (`: ping`) are skipped; multi-line `data` is joined with `\n`; a message without
 * data is not dispatched, as the HTML standard says.
 */
export function sseParser(onMessage: (message: SseMessage) => void): (chunk: string) => void {
  let pending = '';
  let afterCarriageReturn = false;
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onMessage({ event: event || 'message', data: data.join('\n'), id });
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
  };
  return (chunk) => {
    let text = chunk;
    if (afterCarriageReturn && text.startsWith('\n')) text = text.slice(1);
    afterCarriageReturn = false;
    pending += text;
    const lines = pending.split(/\r\n|\r|\n/);
    pending = lines.pop() ?? '';
    // A `\r` at the very end may be the first half of a `\r\n` still to come.
    if (pending === '' && text.endsWith('\r')) afterCarriageReturn = true;
    for (const each of lines) line(each);
  };
}

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface StreamOptions {
  /** The API's origin, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** Asked before each connection, so a reconnection carries a fresh token. */
  token: () => string | Promise<string>;
  /** For a developer's token: the business to follow (`X-Business-Id`). */
  businessId?: string;
  onEvent: (event: LiveEvent) => void;
  /** `open`: reload what is shown. `closed` carries the HTTP status when the server refused for good. */
  onState?: (state: StreamState, status?: number) => void;
  /** Waits between attempts: doubling from `firstMs` up to `maxMs`. */
  backoff?: { firstMs: number; maxMs: number };
  /** Nothing heard for this long (the server pings every 15 s): the connection is presumed dead. */
  silenceMs?: number;
  fetch?: typeof fetch;
}

/** Statuses no retry can change: the credential lacks the scope, or names no business of its own. */
const FINAL_STATUSES = new Set([400, 402, 403, 404]);

export function openStream(options: StreamOptions): { close(): void } {
  const { firstMs, maxMs } = options.backoff ?? { firstMs: 1000, maxMs: 30_000 };
  const silenceMs = options.silenceMs ?? 45_000;
  const request = options.fetch ?? fetch;
  let closed = false;
  let wait = firstMs;
  let current: AbortController | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const state = (value: StreamState, status?: number) => options.onState?.(value, status);

  const again = (afterMs = wait) => {
    if (closed) return;
    state('reconnecting');
    retry = setTimeout(connect, afterMs);
    wait = Math.min(wait * 2, maxMs);
  };

  const connect = async () => {
    if (closed) return;
    const controller = new AbortController();
    current = controller;
    let silence: ReturnType<typeof setTimeout> | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => controller.abort(), silenceMs);
    };
    try {
      const headers: Record<string, string> = {
        authorization: `Bearer ${await options.token()}`,
        accept: 'text/event-stream',
      };
      if (options.businessId) headers['x-business-id'] = options.businessId;
      heard();
      const response = await request(`${options.baseUrl.replace(/\/$/, '')}/v1/manage/stream`, {
        headers,
        signal: controller.signal,
      });
      if (!response.ok || !response.body) {
        clearTimeout(silence);
        await response.body?.cancel();
        if (FINAL_STATUSES.has(response.status)) {
          closed = true;
          state('closed', response.status);
          return;
        }
        const retryAfter = Number(response.headers.get('retry-after'));
        again(retryAfter > 0 ? Math.max(retryAfter * 1000, wait) : wait);
        return;
      }
      const feed = sseParser((message) => {
        if (message.event === 'ready') {
          wait = firstMs;
          state('open');
        } else if (message.event !== 'closing') {
          options.onEvent(JSON.parse(message.data) as LiveEvent);
        }
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        heard();
        feed(value);
      }
    } catch {
      // A network error, an abort (silence, close) or a body cut short: all end as a reconnection.
    }
    clearTimeout(silence);
    again();
  };

  state('connecting');
  void connect();
  return {
    close() {
      closed = true;
      clearTimeout(retry);
      current?.abort();
      state('closed');
    },
  };
}
