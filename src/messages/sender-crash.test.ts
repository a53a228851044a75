// test lane: system
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { bookOk, setupBookable } from '../../test/booking-fixtures.ts';
import { COMPILE_CACHE } from '../../test/compile-cache.ts';
import { createTestApp, ENGINE, migratedDataDir, TEST_PROCESS_ENV } from '../../test/helpers.ts';
import { startSmtpCapture } from '../../test/smtp-capture.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openPGlite } from '../platform/db.ts';
import { EmailSender } from './sender.jobs.ts';

const FIXTURE = fileURLToPath(new URL('./sender-crash.fixture.ts', import.meta.url));
const PUBLIC_BASE_URL = 'https://book.example.com';
/** Past the sender's lease on a claimed message. */
const AFTER_LEASE_MS = 6 * 60_000;

let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
const dataDir = mkdtempSync(join(tmpdir(), 'slotwise-mail-crash-'));
before(async () => {
  smtp = await startSmtpCapture();
});
after(async () => {
  await smtp.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The app of the test and what the sender process is started with: on PostgreSQL both share the
 * server's database; a PGlite is one process's at a time, so the app lets go of its DATA_DIR while
 * the sender runs (`pause`) and opens it again after (`resume`).
 */
async function openShared() {
  if (ENGINE === 'postgres') {
    const ctx = await createTestApp({ smtpUrl: smtp.url, publicBaseUrl: PUBLIC_BASE_URL });
    return {
      app: () => ctx.app,
      env: { DATABASE_URL: ctx.databaseUrl! },
      pause: async () => {},
      resume: async () => {},
      close: () => ctx.close(),
    };
  }
  await migratedDataDir(dataDir);
  const config = {
    ...loadConfig({ ...TEST_PROCESS_ENV, DATA_DIR: dataDir }),
    publicBaseUrl: PUBLIC_BASE_URL,
  };
  const open = async () => {
    const database = await openPGlite(dataDir);
    return { app: await buildApp({ config, database }), database };
  };
  let opened = await open();
  const shut = async () => {
    await opened.app.close();
    await opened.database.close();
  };
  return {
    app: () => opened.app,
    env: { DATA_DIR: dataDir },
    pause: shut,
    resume: async () => {
      opened = await open();
    },
    close: shut,
  };
}

describe('a sender killed between the send and its record', () => {
  it('sends the message once more after its lease, with the same Message-ID, then never again', async () => {
    const shared = await openShared();
    try {
      const biz = await setupBookable(shared.app());
      const booking = await bookOk(shared.app(), biz, { email: 'grace@example.com' });
      await shared.pause();

      const child = spawn(process.execPath, [FIXTURE], {
        env: {
          PATH: process.env.PATH ?? '',
          ...TEST_PROCESS_ENV,
          SMTP_URL: smtp.url,
          PUBLIC_BASE_URL,
          ...COMPILE_CACHE,
          ...shared.env,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let errors = '';
      child.stderr.on('data', (chunk) => {
        errors += chunk;
      });
      const [, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
      assert.equal(
        signal,
        'SIGKILL',
        `the sender died after the SMTP server accepted the message (${errors})`,
      );
      assert.equal(smtp.received.length, 1);

      await shared.resume();
      const app = shared.app();
      const row = () =>
        app.db
          .selectFrom('message_outbox')
          .select(['id', 'attempts', 'sent_at'])
          .where('booking_id', '=', booking.id)
          .executeTakeFirstOrThrow();
      const claimed = await row();
      assert.equal(claimed.sent_at, null, 'the send was never recorded');
      assert.equal(claimed.attempts, 1);

      const start = Date.now();
      const clock = { now: () => start };
      const quiet = { info() {}, warn() {} } as unknown as FastifyBaseLogger;
      const sender = new EmailSender(app.db, clock, quiet, {
        smtpUrl: smtp.url,
        publicBaseUrl: PUBLIC_BASE_URL,
        mailFrom: 'no-reply@book.example.com',
      });
      try {
        assert.equal(await sender.run(), 0, 'the dead sender still holds the lease');
        clock.now = () => start + AFTER_LEASE_MS;
        assert.equal(await sender.run(), 1);
        assert.equal(smtp.received.length, 2);
        const [first, second] = smtp.received;
        assert.equal(first!.mail.messageId, `<${claimed.id}@book.example.com>`);
        assert.equal(
          second!.mail.messageId,
          first!.mail.messageId,
          'the same message, as mail clients see it',
        );
        assert.equal(second!.mail.subject, first!.mail.subject);
        assert.ok((await row()).sent_at, 'recorded this time');

        clock.now = () => start + 100 * AFTER_LEASE_MS;
        assert.equal(await sender.run(), 0);
        assert.equal(smtp.received.length, 2, 'never sent a third time');
      } finally {
        sender.close();
      }
    } finally {
      await shared.close();
    }
  });
});
