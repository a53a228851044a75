import pg from 'pg';
import { withTimeout } from './timeout.ts';

export interface ChannelListener {
  message(payload: string, channel: string): void;
  /** Listening (again): notifications from now on are delivered. */
  up(): void;
  /** Notifications may be missed until the next `up`. */
  down(): void;
}

const LISTEN_RETRY_MS = 1000;

export interface ListenHealthCheck {
  /** How often the listening connection is asked a trivial query. */
  checkEveryMs: number;
  /** No answer within this long counts as a lost connection. */
  checkTimeoutMs: number;
}

const LISTEN_HEALTH_CHECK: ListenHealthCheck = { checkEveryMs: 10_000, checkTimeoutMs: 5_000 };

/** Whether the connection answers `SELECT 1` in time; the timer never keeps the process alive. */
export const answers = (client: pg.Client, timeoutMs: number): Promise<boolean> =>
  withTimeout(
    client.query('SELECT 1').then(
      () => true,
      () => false,
    ),
    timeoutMs,
    () => false,
  );

/**
 * A dedicated connection for LISTEN (a pooled one would be handed to queries), reconnecting when
 * lost. A connection whose network silently dropped (half-open) never ends by itself: TCP
 * keepalive and a periodic `SELECT 1` find it, so the feed goes down instead of going quiet.
 * One connection per process, whatever the number of channels: each is one more LISTEN on it.
 */
export async function listenOnServer(
  connectionString: string,
  channels: readonly string[],
  listener: ChannelListener,
  health: ListenHealthCheck = LISTEN_HEALTH_CHECK,
) {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let checks: NodeJS.Timeout | undefined;
  // `down` marks the end of an `up`: a reconnect that fails again has nothing more to announce.
  let listening = false;
  const goDown = () => {
    if (!listening) return;
    listening = false;
    listener.down();
  };
  const reconnectLater = () => {
    goDown();
    if (stopped) return;
    retry = setTimeout(() => void connect(), LISTEN_RETRY_MS);
    retry.unref();
  };
  const connect = async () => {
    const candidate = new pg.Client({
      connectionString,
      keepAlive: true,
      keepAliveInitialDelayMillis: health.checkEveryMs,
      connectionTimeoutMillis: health.checkTimeoutMs,
    });
    candidate.on('notification', (notification) => {
      if (notification.payload) listener.message(notification.payload, notification.channel);
    });
    candidate.on('error', () => {});
    try {
      await candidate.connect();
      await candidate.query(channels.map((channel) => `LISTEN ${channel}`).join('; '));
    } catch {
      await candidate.end().catch(() => {});
      reconnectLater();
      return;
    }
    if (stopped) {
      await candidate.end().catch(() => {});
      return;
    }
    let lost = false;
    let checking = false;
    const drop = () => {
      if (lost) return;
      lost = true;
      clearInterval(timer);
      if (stopped) return;
      client = undefined;
      reconnectLater();
      // With the check's query still pending, `end` closes the socket at once.
      candidate.end().catch(() => {});
    };
    const timer = setInterval(() => {
      if (checking) return;
      checking = true;
      void answers(candidate, health.checkTimeoutMs).then((alive) => {
        checking = false;
        if (!alive) drop();
      });
    }, health.checkEveryMs);
    timer.unref();
    checks = timer;
    candidate.once('end', drop);
    client = candidate;
    listening = true;
    listener.up();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    clearInterval(checks);
    goDown();
    await client?.end().catch(() => {});
  };
}
