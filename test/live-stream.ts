import { type SseMessage, sseParser } from '../dashboard/stream.ts';
import { eventually } from './helpers.ts';

/** A stream as a client reads it: every message and comment so far, and whether it ended. */
export interface OpenedStream {
  response: Response;
  messages: SseMessage[];
  pings: number;
  ended: boolean;
  /** The first message of this event type (after `from` messages), awaited. */
  next(event: string, from?: number): Promise<SseMessage>;
  close(): void;
}

/** Opens `GET /v1/manage/stream` on a listening server and reads it in the background. */
export async function readStream(url: string, headers: Record<string, string>): Promise<OpenedStream> {
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/manage/stream`, { headers, signal: controller.signal });
  const opened: OpenedStream = {
    response,
    messages: [],
    pings: 0,
    ended: false,
    async next(event, from = 0) {
      let found: SseMessage | undefined;
      await eventually(() => {
        found = opened.messages.slice(from).find((m) => m.event === event);
        return found !== undefined;
      }, `a "${event}" event`);
      return found!;
    },
    close: () => controller.abort(),
  };
  if (!response.ok || !response.body) return opened;
  const feed = sseParser((message) => opened.messages.push(message));
  void (async () => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        opened.pings += value.split(': ping\n').length - 1;
        feed(value);
      }
    } catch {
      // aborted by the test
    }
    opened.ended = true;
  })();
  return opened;
}
