import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * PostgreSQL itself, never through a transaction pooler, for what needs a session: the change
   * feed's LISTEN and the migrations' lock. `DATABASE_URL` unless set.
   */
  databaseListenUrl: string | undefined;
  redisUrl: string | undefined;
  /** Prepended to every Redis key, so deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  jwtSecret: string;
  logLevel: string;
  publicBaseUrl: string;
  paymentsWebhookSecret: string | undefined;
  stripeSecretKey: string | undefined;
  /** Where the Stripe SDK sends its requests (a local stand-in); unset: Stripe's own API. */
  stripeApiBase: string | undefined;
  smtpUrl: string | undefined;
  /** Where guests' SMS go through Twilio; undefined: they are written to the log. */
  twilio: TwilioConfig | undefined;
  /**
   * The Argon2id cost of new password hashes: always OWASP's (`PASSWORD_COST`), which no variable
   * lowers; the test suite's apps set a cheap one, as they hash hundreds of passwords.
   */
  passwordCost: PasswordCost;
  /** The most SMS one business may send a day (`SMS_MAX_PER_BUSINESS_PER_DAY`): the ceiling of its `sms_per_day`. */
  smsMaxPerBusinessPerDay: number;
  /** The sender address of every email (`MAIL_FROM`); default `no-reply@<PUBLIC_BASE_URL host>`. */
  mailFrom: string;
  /**
   * Live businesses' deposits and developer billing may go through the simulated processor (only
   * without `stripeSecretKey`); sandbox businesses always do.
   */
  simulatedPayments: boolean;
  webhookAllowPrivateUrls: boolean;
  /** Waits between a failed webhook delivery and its next attempt, in milliseconds (before jitter). */
  webhookRetrySchedule: number[];
  /** Which proxies' `X-Forwarded-For` names the client (Fastify's `trustProxy`); false: the socket's address. */
  trustProxy: boolean | number | string[];
  /** How long the database may keep a request waiting, in milliseconds (0: no limit); see `DbTimeouts`. */
  dbTimeouts: { lockMs: number; statementMs: number; acquireMs: number };
  /**
   * How long one request may wait for the database in all (a connection, locks, statements), in
   * milliseconds from its arrival (0: no limit); past it the request is answered 503.
   */
  dbRequestDeadlineMs: number;
  /**
   * How many requests of one business may use the database at once in this process (0: no
   * limit); the others wait their turn within their deadline, then are answered 503.
   */
  dbConcurrencyPerBusiness: number;
  /** `/metrics` on the public port asks for `Authorization: Bearer <this>`; unset: see `metricsPort`. */
  metricsToken: string | undefined;
  /** A listener of its own for `/metrics` (on `metricsHost`); undefined: none. */
  metricsPort: number | undefined;
  metricsHost: string;
  /** Thresholds past which the API answers 503 (`@fastify/under-pressure`); 0: not checked. */
  pressure: { maxEventLoopDelayMs: number; maxHeapUsedBytes: number; maxRssBytes: number };
  /** How long a stopping server waits for requests in flight before it cuts their connections. */
  shutdownTimeoutMs: number;
  /**
   * The change log's reader (platform/change-log.ts): how often it polls, how old its last
   * successful poll may be while cached availability and keys are served, and whether writes send
   * other processes a wake-up hint (`NOTIFY`) after they commit.
   */
  changeFeed: { pollMs: number; maxLagMs: number; hints: boolean };
  /**
   * Live streams (`GET /v1/manage/stream`): open at once per business (sandbox or not), per
   * developer, per client IP and per process; the heartbeat; how often credentials are read again.
   */
  streams: {
    perBusiness: number;
    perSandboxBusiness: number;
    perDeveloper: number;
    perIp: number;
    perProcess: number;
    heartbeatMs: number;
    recheckMs: number;
  };
}

/** Argon2id's memory (KiB), passes and lanes. A hash names its own cost, so checking one needs none. */
export interface PasswordCost {
  memoryKib: number;
  passes: number;
  lanes: number;
}

/** OWASP's Argon2id setting. */
export const PASSWORD_COST: PasswordCost = { memoryKib: 19_456, passes: 2, lanes: 1 };

/** Twilio's account, and the sender: a number (`from`) or a messaging service. */
export interface TwilioConfig {
  accountSid: string;
  authToken: string;
  from: string | undefined;
  messagingServiceSid: string | undefined;
  /** Where the Twilio SDK sends its requests (a local stand-in); unset: Twilio's own API. */
  apiBase: string | undefined;
}

/** An address only: each message names its sender (the venue, or Slotwise) beside it. */
function parseMailFrom(raw: string | undefined, publicBaseUrl: string): string {
  if (!raw) return `no-reply@${new URL(publicBaseUrl).hostname}`;
  if (!/^[^\s@<>"]+@[^\s@<>"]+$/.test(raw)) {
    throw new ConfigError(`MAIL_FROM must be an email address such as bookings@example.com, got "${raw}"`);
  }
  return raw;
}

/** A start-up problem that names the variable; main prints its message as one line and exits non-zero. */
export class ConfigError extends Error {}

/** Why METRICS_PORT could not listen, in the terms that fix it. */
export function metricsListenError(error: unknown, port: number, host: string): ConfigError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new ConfigError(`METRICS_PORT ${port} on METRICS_HOST ${host} cannot listen (${reason})`);
}

/** The usual reasons a listen fails, said in terms of the variables that fix them. */
export function listenError(error: unknown, config: Config): unknown {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new ConfigError(
        `PORT ${config.port} is already in use on ${config.host}; stop the other server or set another PORT`,
      );
    case 'EACCES':
      return new ConfigError(`PORT ${config.port} needs privileges on this machine; use a port above 1023`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(`HOST "${config.host}" is not an address of this machine`);
    default:
      return error;
  }
}

const MIN_JWT_SECRET_LENGTH = 32;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parsePort(raw: string | undefined, name = 'PORT'): number {
  if (raw === undefined || raw === '') return 8080;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`${name} must be a whole number from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

/** A whole number of at least zero, `fallback` when unset. */
function parseCount(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d{1,15}$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  return Number(raw.trim());
}

function parseUrl(name: string, raw: string | undefined, protocols: string[]): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

function parseBool(name: string, raw: string | undefined): boolean {
  return parseOptionalBool(name, raw) ?? false;
}

/** True or false as the variable says; undefined when it is unset. */
function parseOptionalBool(name: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** `TWILIO_*`: all of account, token and a sender, or none of them. */
function parseTwilio(env: NodeJS.ProcessEnv): TwilioConfig | undefined {
  const accountSid = env.TWILIO_ACCOUNT_SID || undefined;
  const authToken = env.TWILIO_AUTH_TOKEN || undefined;
  const from = env.TWILIO_FROM || undefined;
  const messagingServiceSid = env.TWILIO_MESSAGING_SERVICE_SID || undefined;
  const apiBase = parseUrl('TWILIO_API_BASE', env.TWILIO_API_BASE, ['http:', 'https:']);
  if (!accountSid && !authToken && !from && !messagingServiceSid) return undefined;
  if (!accountSid || !authToken || !(from || messagingServiceSid)) {
    throw new ConfigError(
      'SMS through Twilio needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID together',
    );
  }
  return { accountSid, authToken, from, messagingServiceSid, apiBase };
}

/** The Standard Webhooks schedule: after the first attempt, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const STANDARD_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
const DURATION_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_RETRIES = 20;

/** `WEBHOOK_RETRY_SCHEDULE`: the waits between attempts, as `5s,5m,30m,2h` (units ms, s, m, h, d). */
function parseRetrySchedule(raw: string | undefined): number[] {
  const value = raw === undefined || raw.trim() === '' ? STANDARD_RETRY_SCHEDULE : raw;
  const steps = value.split(',').map((part) => /^\s*(\d{1,9})\s*(ms|s|m|h|d)\s*$/.exec(part));
  if (steps.length > MAX_RETRIES || steps.some((step) => !step || Number(step[1]) === 0)) {
    throw new ConfigError(
      `WEBHOOK_RETRY_SCHEDULE must be 1 to ${MAX_RETRIES} comma-separated waits above zero such as 5s,5m,30m,2h (units ms, s, m, h, d), got "${raw}"`,
    );
  }
  return steps.map((step) => Number(step![1]) * DURATION_UNIT_MS[step![2]!]!);
}

/** The default of each database timeout: past it a request is answered 503 instead of waiting on. */
const DB_TIMEOUT_MS = 5000;

/** A wait in whole milliseconds, 0 for none; unset: `DB_TIMEOUT_MS`. */
function parseTimeoutMs(name: string, raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DB_TIMEOUT_MS;
  if (!/^\s*\d{1,9}\s*$/.test(raw)) {
    throw new ConfigError(`${name} must be a whole number of milliseconds (0 for no limit), got "${raw}"`);
  }
  return Number(raw);
}

const IP_OR_CIDR = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:]*:[0-9a-f:.]*)(\/\d{1,3})?$/i;

/**
 * `TRUST_PROXY`: `true` (every proxy: only behind one that overwrites the header), a hop count,
 * or a comma-separated list of proxy addresses or CIDR ranges. Unset: no proxy is trusted, so a
 * client cannot pick its own rate-limit bucket by sending `X-Forwarded-For`.
 */
function parseTrustProxy(raw: string | undefined): boolean | number | string[] {
  if (raw === undefined || raw.trim() === '') return false;
  const value = raw.trim();
  if (/^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const proxies = value.split(',').map((part) => part.trim());
  if (
    proxies.every(
      (proxy) => IP_OR_CIDR.test(proxy) || ['loopback', 'linklocal', 'uniquelocal'].includes(proxy),
    )
  ) {
    return proxies;
  }
  throw new ConfigError(
    `TRUST_PROXY must be true, false, a number of hops or a comma-separated list of addresses/CIDR ranges, got "${raw}"`,
  );
}

/** The embedded default keeps its generated JWT secret beside the data so tokens survive restarts. */
function embeddedJwtSecret(dataDir: string): string {
  const file = join(dataDir, 'jwt-secret');
  try {
    mkdirSync(dataDir, { recursive: true });
    const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
    if (kept.length >= MIN_JWT_SECRET_LENGTH) return kept;
    const secret = randomBytes(48).toString('base64url');
    writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError(`DATA_DIR ${dataDir} cannot hold the data (${reason})`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = parsePort(env.PORT);
  const host = env.HOST || '127.0.0.1';
  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = parseUrl('DATABASE_URL', env.DATABASE_URL, ['postgres:', 'postgresql:']);
  const databaseListenUrl =
    parseUrl('DATABASE_LISTEN_URL', env.DATABASE_LISTEN_URL, ['postgres:', 'postgresql:']) ?? databaseUrl;
  if (databaseListenUrl && !databaseUrl) {
    throw new ConfigError(
      'DATABASE_LISTEN_URL needs DATABASE_URL: the embedded database listens in the process',
    );
  }
  const redisUrl = parseUrl('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:']);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  if (
    env.JWT_SECRET !== undefined &&
    env.JWT_SECRET !== '' &&
    env.JWT_SECRET.length < MIN_JWT_SECRET_LENGTH
  ) {
    throw new ConfigError(`JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters`);
  }
  let jwtSecret = env.JWT_SECRET || '';
  if (!jwtSecret) {
    if (databaseUrl) throw new ConfigError('JWT_SECRET is required when DATABASE_URL is set');
    jwtSecret = embeddedJwtSecret(dataDir);
  }
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const stripeSecretKey = env.STRIPE_SECRET_KEY || undefined;
  const paymentsWebhookSecret = env.PAYMENTS_WEBHOOK_SECRET || undefined;
  // Stripe's events can only be verified with the signing secret of its webhook endpoint.
  if (stripeSecretKey && !paymentsWebhookSecret) {
    throw new ConfigError(
      "PAYMENTS_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set (the signing secret of Stripe's webhook endpoint)",
    );
  }
  const publicBaseUrl =
    parseUrl('PUBLIC_BASE_URL', env.PUBLIC_BASE_URL, ['http:', 'https:']) ?? `http://${displayHost}:${port}`;
  return {
    port,
    host,
    dataDir,
    databaseUrl,
    databaseListenUrl,
    redisUrl,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'slotwise:',
    jwtSecret,
    logLevel,
    publicBaseUrl: publicBaseUrl.replace(/\/$/, ''),
    paymentsWebhookSecret,
    stripeSecretKey,
    stripeApiBase: parseUrl('STRIPE_API_BASE', env.STRIPE_API_BASE, ['http:', 'https:']),
    smtpUrl: parseUrl('SMTP_URL', env.SMTP_URL, ['smtp:', 'smtps:']),
    twilio: parseTwilio(env),
    passwordCost: PASSWORD_COST,
    smsMaxPerBusinessPerDay: parseCount(
      'SMS_MAX_PER_BUSINESS_PER_DAY',
      env.SMS_MAX_PER_BUSINESS_PER_DAY,
      1000,
    ),
    mailFrom: parseMailFrom(env.MAIL_FROM, publicBaseUrl),
    // The embedded default (no DATABASE_URL) is for trying the service out, where paying on the
    // test pages is the point; a deployment on PostgreSQL takes no free money unless it says so.
    simulatedPayments: parseOptionalBool('SIMULATED_PAYMENTS', env.SIMULATED_PAYMENTS) ?? !databaseUrl,
    webhookAllowPrivateUrls: parseBool('WEBHOOK_ALLOW_PRIVATE_URLS', env.WEBHOOK_ALLOW_PRIVATE_URLS),
    webhookRetrySchedule: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    dbTimeouts: {
      lockMs: parseTimeoutMs('DB_LOCK_TIMEOUT_MS', env.DB_LOCK_TIMEOUT_MS),
      statementMs: parseTimeoutMs('DB_STATEMENT_TIMEOUT_MS', env.DB_STATEMENT_TIMEOUT_MS),
      acquireMs: parseTimeoutMs('DB_ACQUIRE_TIMEOUT_MS', env.DB_ACQUIRE_TIMEOUT_MS),
    },
    dbRequestDeadlineMs: parseTimeoutMs('DB_REQUEST_DEADLINE_MS', env.DB_REQUEST_DEADLINE_MS),
    dbConcurrencyPerBusiness: parseCount('DB_CONCURRENCY_PER_BUSINESS', env.DB_CONCURRENCY_PER_BUSINESS, 4),
    metricsToken: env.METRICS_TOKEN || undefined,
    metricsPort: env.METRICS_PORT ? parsePort(env.METRICS_PORT, 'METRICS_PORT') : undefined,
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    pressure: {
      maxEventLoopDelayMs: parseCount('MAX_EVENT_LOOP_DELAY_MS', env.MAX_EVENT_LOOP_DELAY_MS, 1000),
      maxHeapUsedBytes: parseCount('MAX_HEAP_BYTES', env.MAX_HEAP_BYTES, 0),
      maxRssBytes: parseCount('MAX_RSS_BYTES', env.MAX_RSS_BYTES, 0),
    },
    shutdownTimeoutMs: parseCount('SHUTDOWN_TIMEOUT_MS', env.SHUTDOWN_TIMEOUT_MS, 10_000),
    changeFeed: {
      pollMs: Math.max(1, parseCount('CHANGE_FEED_POLL_MS', env.CHANGE_FEED_POLL_MS, 250)),
      maxLagMs: parseCount('CHANGE_FEED_MAX_LAG_MS', env.CHANGE_FEED_MAX_LAG_MS, 1000),
      hints: parseOptionalBool('CHANGE_FEED_HINTS', env.CHANGE_FEED_HINTS) ?? true,
    },
    streams: {
      perBusiness: parseCount('STREAMS_PER_BUSINESS', env.STREAMS_PER_BUSINESS, 20),
      perSandboxBusiness: parseCount('STREAMS_PER_SANDBOX', env.STREAMS_PER_SANDBOX, 5),
      perDeveloper: parseCount('STREAMS_PER_DEVELOPER', env.STREAMS_PER_DEVELOPER, 100),
      perIp: parseCount('STREAMS_PER_IP', env.STREAMS_PER_IP, 50),
      perProcess: parseCount('STREAMS_PER_PROCESS', env.STREAMS_PER_PROCESS, 2000),
      heartbeatMs: 15_000,
      // A lapsed credential's stream ends within 30 s: two reads within that time, so one that
      // fails or runs late still leaves another.
      recheckMs: 15_000,
    },
  };
}
