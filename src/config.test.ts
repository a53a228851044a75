import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

const SECRET = 'a-jwt-secret-of-at-least-32-characters';
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'slotwise-config-'));
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Asserts that loading fails with one line that names the variable. */
function assertRefused(env: NodeJS.ProcessEnv, variable: string): void {
  assert.throws(
    () => loadConfig({ DATA_DIR: tempDir(), ...env }),
    (error: unknown) =>
      error instanceof ConfigError && error.message.includes(variable) && !error.message.includes('\n'),
    JSON.stringify(env),
  );
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const dataDir = tempDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, dataDir);
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.publicBaseUrl, 'http://127.0.0.1:8080');
    assert.equal(config.paymentsWebhookSecret, undefined);
    assert.equal(config.stripeSecretKey, undefined);
    assert.equal(config.stripeApiBase, undefined);
    assert.equal(config.smtpUrl, undefined);
    assert.equal(config.twilio, undefined, 'SMS go to the log');
    assert.equal(config.smsMaxPerBusinessPerDay, 1000);
    assert.deepEqual(
      config.passwordCost,
      { memoryKib: 19_456, passes: 2, lanes: 1 },
      "OWASP's Argon2id cost",
    );
    assert.equal(config.simulatedPayments, true, 'the embedded default pays on the simulated processor');
    assert.equal(config.webhookAllowPrivateUrls, false);
    assert.deepEqual(
      config.webhookRetrySchedule,
      [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      'the Standard Webhooks schedule',
    );
  });

  it('lets live payments through the simulated processor only in the embedded default, unless SIMULATED_PAYMENTS says', () => {
    const postgres = { DATABASE_URL: 'postgres://localhost/slotwise', JWT_SECRET: SECRET };
    assert.equal(loadConfig({ DATA_DIR: tempDir(), ...postgres }).simulatedPayments, false);
    assert.equal(
      loadConfig({ DATA_DIR: tempDir(), ...postgres, SIMULATED_PAYMENTS: 'true' }).simulatedPayments,
      true,
    );
    assert.equal(loadConfig({ DATA_DIR: tempDir(), SIMULATED_PAYMENTS: 'false' }).simulatedPayments, false);
    assert.equal(loadConfig({ DATA_DIR: tempDir(), SIMULATED_PAYMENTS: '' }).simulatedPayments, true);
    assertRefused({ SIMULATED_PAYMENTS: 'sometimes' }, 'SIMULATED_PAYMENTS');
  });

  it('listens and migrates over DATABASE_URL unless DATABASE_LISTEN_URL names a direct connection', () => {
    const pooled = { DATABASE_URL: 'postgres://app@pgbouncer:6432/slotwise', JWT_SECRET: SECRET };
    assert.equal(loadConfig(pooled).databaseListenUrl, pooled.DATABASE_URL);
    const direct = 'postgresql://app@postgres:5432/slotwise';
    assert.equal(loadConfig({ ...pooled, DATABASE_LISTEN_URL: direct }).databaseListenUrl, direct);
    assert.equal(loadConfig({ DATA_DIR: tempDir() }).databaseListenUrl, undefined);
  });

  it('puts the data in ./data unless DATA_DIR says otherwise', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://localhost/slotwise', JWT_SECRET: SECRET });
    assert.equal(config.dataDir, resolve('data'));
  });

  it('generates the embedded JWT secret once and keeps it in DATA_DIR', () => {
    const dataDir = tempDir();
    const first = loadConfig({ DATA_DIR: dataDir }).jwtSecret;
    assert.ok(first.length >= 32);
    assert.equal(readFileSync(join(dataDir, 'jwt-secret'), 'utf8'), first);
    assert.equal(loadConfig({ DATA_DIR: dataDir }).jwtSecret, first);
  });

  it('replaces a kept secret that is too short to sign with', () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'jwt-secret'), '\n');
    assert.ok(loadConfig({ DATA_DIR: dataDir }).jwtSecret.length >= 32);
  });

  it('prefers JWT_SECRET to the kept one', () => {
    assert.equal(loadConfig({ DATA_DIR: tempDir(), JWT_SECRET: SECRET }).jwtSecret, SECRET);
  });

  it('bounds database waits at 5 s each unless DB_*_TIMEOUT_MS say otherwise (0: no limit)', () => {
    assert.deepEqual(loadConfig({ DATA_DIR: tempDir() }).dbTimeouts, {
      lockMs: 5000,
      statementMs: 5000,
      acquireMs: 5000,
    });
    const config = loadConfig({
      DATA_DIR: tempDir(),
      DB_LOCK_TIMEOUT_MS: '1500',
      DB_STATEMENT_TIMEOUT_MS: '0',
      DB_ACQUIRE_TIMEOUT_MS: '250',
    });
    assert.deepEqual(config.dbTimeouts, { lockMs: 1500, statementMs: 0, acquireMs: 250 });
  });

  it('gives a request 5 s of database waits in all unless DB_REQUEST_DEADLINE_MS says otherwise (0: no limit)', () => {
    assert.equal(loadConfig({ DATA_DIR: tempDir() }).dbRequestDeadlineMs, 5000);
    assert.equal(
      loadConfig({ DATA_DIR: tempDir(), DB_REQUEST_DEADLINE_MS: '2000' }).dbRequestDeadlineMs,
      2000,
    );
    assert.equal(loadConfig({ DATA_DIR: tempDir(), DB_REQUEST_DEADLINE_MS: '0' }).dbRequestDeadlineMs, 0);
  });

  it('lets 4 requests of one business use the database at once unless DB_CONCURRENCY_PER_BUSINESS says otherwise (0: no limit)', () => {
    const read = (value?: string) =>
      loadConfig({ DATA_DIR: tempDir(), DB_CONCURRENCY_PER_BUSINESS: value }).dbConcurrencyPerBusiness;
    assert.equal(read(), 4);
    assert.equal(read('1'), 1);
    assert.equal(read(' 16 '), 16);
    assert.equal(read('0'), 0);
  });

  it('trusts no proxy unless TRUST_PROXY names them, in the forms of Fastify trustProxy', () => {
    assert.equal(loadConfig({ DATA_DIR: tempDir() }).trustProxy, false);
    const read = (value: string) => loadConfig({ DATA_DIR: tempDir(), TRUST_PROXY: value }).trustProxy;
    assert.equal(read('true'), true);
    assert.equal(read('2'), 2);
    assert.deepEqual(read('10.0.0.1, 10.1.0.0/16,::1, loopback'), [
      '10.0.0.1',
      '10.1.0.0/16',
      '::1',
      'loopback',
    ]);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: 'relative-data',
      DATABASE_URL: 'postgresql://app@db:5432/slotwise',
      REDIS_URL: 'redis://cache:6379',
      JWT_SECRET: SECRET,
      LOG_LEVEL: 'warn',
      PAYMENTS_WEBHOOK_SECRET: 'whsec_123',
      STRIPE_SECRET_KEY: 'sk_test_123',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
      SMTP_URL: 'smtp://mail:25',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '500ms, 1s,2m,1h,1d',
    });
    assert.equal(config.port, 9000);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.dataDir, resolve('relative-data'));
    assert.equal(config.databaseUrl, 'postgresql://app@db:5432/slotwise');
    assert.equal(config.redisUrl, 'redis://cache:6379');
    assert.equal(config.jwtSecret, SECRET);
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.publicBaseUrl, 'http://127.0.0.1:9000', 'a wildcard host is shown as loopback');
    assert.equal(config.paymentsWebhookSecret, 'whsec_123');
    assert.equal(config.stripeSecretKey, 'sk_test_123');
    assert.equal(config.stripeApiBase, 'http://127.0.0.1:12111');
    assert.equal(config.smtpUrl, 'smtp://mail:25');
    assert.equal(config.webhookAllowPrivateUrls, true);
    assert.deepEqual(config.webhookRetrySchedule, [500, 1_000, 120_000, 3_600_000, 86_400_000]);
  });

  it('sends SMS through Twilio from a number or a messaging service, at TWILIO_API_BASE when set', () => {
    const account = { TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 'token' };
    assert.deepEqual(loadConfig({ DATA_DIR: tempDir(), ...account, TWILIO_FROM: '+15005550006' }).twilio, {
      accountSid: 'AC1',
      authToken: 'token',
      from: '+15005550006',
      messagingServiceSid: undefined,
      apiBase: undefined,
    });
    assert.deepEqual(
      loadConfig({
        DATA_DIR: tempDir(),
        ...account,
        TWILIO_MESSAGING_SERVICE_SID: 'MG1',
        TWILIO_API_BASE: 'http://127.0.0.1:4010',
      }).twilio,
      {
        accountSid: 'AC1',
        authToken: 'token',
        from: undefined,
        messagingServiceSid: 'MG1',
        apiBase: 'http://127.0.0.1:4010',
      },
    );
    assert.equal(
      loadConfig({ DATA_DIR: tempDir(), SMS_MAX_PER_BUSINESS_PER_DAY: '50' }).smsMaxPerBusinessPerDay,
      50,
    );
  });

  it('takes PUBLIC_BASE_URL without its trailing slash', () => {
    const config = loadConfig({ DATA_DIR: tempDir(), PUBLIC_BASE_URL: 'https://api.example.com/' });
    assert.equal(config.publicBaseUrl, 'https://api.example.com');
  });

  it('sends email from no-reply@ the public host unless MAIL_FROM names an address', () => {
    const config = loadConfig({ DATA_DIR: tempDir(), PUBLIC_BASE_URL: 'https://book.example.com' });
    assert.equal(config.mailFrom, 'no-reply@book.example.com');
    assert.equal(
      loadConfig({ DATA_DIR: tempDir(), MAIL_FROM: 'bookings@example.com' }).mailFrom,
      'bookings@example.com',
    );
  });

  it('accepts PORT 0 (any free port) and the usual spellings of booleans', () => {
    assert.equal(loadConfig({ DATA_DIR: tempDir(), PORT: '0' }).port, 0);
    for (const [raw, value] of [
      ['1', true],
      ['YES', true],
      ['false', false],
      ['0', false],
    ] as const) {
      assert.equal(
        loadConfig({ DATA_DIR: tempDir(), WEBHOOK_ALLOW_PRIVATE_URLS: raw }).webhookAllowPrivateUrls,
        value,
      );
    }
  });

  it('reads the metrics, pressure and shutdown variables, with safe defaults', () => {
    const defaults = loadConfig({ DATA_DIR: tempDir() });
    assert.equal(defaults.metricsToken, undefined);
    assert.equal(defaults.metricsPort, undefined);
    assert.equal(defaults.metricsHost, '127.0.0.1');
    assert.deepEqual(defaults.pressure, { maxEventLoopDelayMs: 1000, maxHeapUsedBytes: 0, maxRssBytes: 0 });
    assert.equal(defaults.shutdownTimeoutMs, 10_000);
    const config = loadConfig({
      DATA_DIR: tempDir(),
      METRICS_TOKEN: 'scrape-me',
      METRICS_PORT: '9464',
      METRICS_HOST: '0.0.0.0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      MAX_HEAP_BYTES: '1073741824',
      MAX_RSS_BYTES: '2147483648',
      SHUTDOWN_TIMEOUT_MS: '30000',
    });
    assert.equal(config.metricsToken, 'scrape-me');
    assert.equal(config.metricsPort, 9464);
    assert.equal(config.metricsHost, '0.0.0.0');
    assert.deepEqual(config.pressure, {
      maxEventLoopDelayMs: 0,
      maxHeapUsedBytes: 1_073_741_824,
      maxRssBytes: 2_147_483_648,
    });
    assert.equal(config.shutdownTimeoutMs, 30_000);
  });

  describe('refuses a bad value with one line naming the variable', () => {
    const cases: [string, NodeJS.ProcessEnv][] = [
      ['PORT', { PORT: 'eighty' }],
      ['PORT', { PORT: '65536' }],
      ['PORT', { PORT: '-1' }],
      ['PORT', { PORT: '80.5' }],
      ['PORT', { PORT: '1e3' }],
      ['DATABASE_URL', { DATABASE_URL: 'not a url', JWT_SECRET: SECRET }],
      ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/db', JWT_SECRET: SECRET }],
      [
        'DATABASE_LISTEN_URL',
        { DATABASE_URL: 'postgres://pgbouncer/db', DATABASE_LISTEN_URL: 'db:5432', JWT_SECRET: SECRET },
      ],
      [
        'DATABASE_LISTEN_URL',
        { DATABASE_URL: 'postgres://pgbouncer/db', DATABASE_LISTEN_URL: 'mysql://db/db', JWT_SECRET: SECRET },
      ],
      ['DATABASE_LISTEN_URL', { DATABASE_LISTEN_URL: 'postgres://localhost/db' }],
      ['REDIS_URL', { REDIS_URL: 'http://localhost:6379' }],
      ['JWT_SECRET', { JWT_SECRET: 'short' }],
      ['JWT_SECRET', { DATABASE_URL: 'postgres://localhost/db' }],
      ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
      ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'ftp://example.com' }],
      ['SMTP_URL', { SMTP_URL: 'mail.example.com' }],
      ['MAIL_FROM', { MAIL_FROM: 'Bookings <bookings@example.com>' }],
      ['STRIPE_API_BASE', { STRIPE_API_BASE: 'localhost:12111' }],
      ['TWILIO_AUTH_TOKEN', { TWILIO_ACCOUNT_SID: 'AC1', TWILIO_FROM: '+15005550006' }],
      ['TWILIO_FROM', { TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 'token' }],
      ['TWILIO_ACCOUNT_SID', { TWILIO_MESSAGING_SERVICE_SID: 'MG1' }],
      ['TWILIO_API_BASE', { TWILIO_API_BASE: 'localhost:4010' }],
      ['PAYMENTS_WEBHOOK_SECRET', { STRIPE_SECRET_KEY: 'sk_test_123' }],
      ['WEBHOOK_ALLOW_PRIVATE_URLS', { WEBHOOK_ALLOW_PRIVATE_URLS: 'maybe' }],
      ['WEBHOOK_RETRY_SCHEDULE', { WEBHOOK_RETRY_SCHEDULE: '5s,,1m' }],
      ['WEBHOOK_RETRY_SCHEDULE', { WEBHOOK_RETRY_SCHEDULE: '5 seconds' }],
      ['WEBHOOK_RETRY_SCHEDULE', { WEBHOOK_RETRY_SCHEDULE: '0s' }],
      ['WEBHOOK_RETRY_SCHEDULE', { WEBHOOK_RETRY_SCHEDULE: Array(21).fill('1s').join(',') }],
      ['TRUST_PROXY', { TRUST_PROXY: 'the load balancer' }],
      ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.1, proxy.internal' }],
      ['DB_LOCK_TIMEOUT_MS', { DB_LOCK_TIMEOUT_MS: '5s' }],
      ['DB_STATEMENT_TIMEOUT_MS', { DB_STATEMENT_TIMEOUT_MS: '-1' }],
      ['DB_ACQUIRE_TIMEOUT_MS', { DB_ACQUIRE_TIMEOUT_MS: '1.5' }],
      ['DB_REQUEST_DEADLINE_MS', { DB_REQUEST_DEADLINE_MS: '2s' }],
      ['DB_REQUEST_DEADLINE_MS', { DB_REQUEST_DEADLINE_MS: '-5' }],
      ['DB_CONCURRENCY_PER_BUSINESS', { DB_CONCURRENCY_PER_BUSINESS: 'four' }],
      ['DB_CONCURRENCY_PER_BUSINESS', { DB_CONCURRENCY_PER_BUSINESS: '-1' }],
      ['DB_CONCURRENCY_PER_BUSINESS', { DB_CONCURRENCY_PER_BUSINESS: '2.5' }],
      ['METRICS_PORT', { METRICS_PORT: 'ninety' }],
      ['MAX_EVENT_LOOP_DELAY_MS', { MAX_EVENT_LOOP_DELAY_MS: '1s' }],
      ['MAX_HEAP_BYTES', { MAX_HEAP_BYTES: '-1' }],
      ['MAX_RSS_BYTES', { MAX_RSS_BYTES: '2GB' }],
      ['SHUTDOWN_TIMEOUT_MS', { SHUTDOWN_TIMEOUT_MS: '10.5' }],
      ['SMS_MAX_PER_BUSINESS_PER_DAY', { SMS_MAX_PER_BUSINESS_PER_DAY: 'lots' }],
    ];
    for (const [variable, env] of cases) {
      it(`${variable}=${Object.values(env)[0]}`, () => assertRefused(env, variable));
    }

    it('DATA_DIR that is a file', () => {
      const file = join(tempDir(), 'not-a-folder');
      writeFileSync(file, '');
      assertRefused({ DATA_DIR: file }, 'DATA_DIR');
    });
  });
});
