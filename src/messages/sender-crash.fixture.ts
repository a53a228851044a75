/**
 * A sender that dies between a send and its record: once the SMTP server has accepted a message,
 * the process kills itself before the message is marked sent. On the database of DATABASE_URL,
 * else the PGlite of DATA_DIR. Started by sender-crash.test.ts.
 */
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import { loadConfig } from '../config.ts';
import { systemClock } from '../platform/clock.ts';
import { openPGlite, openPostgres } from '../platform/db.ts';
import { EmailSender } from './sender.jobs.ts';

const createTransport = nodemailer.createTransport.bind(nodemailer);
nodemailer.createTransport = ((...args: Parameters<typeof nodemailer.createTransport>) => {
  const transport = createTransport(...args);
  const sendMail = transport.sendMail.bind(transport);
  transport.sendMail = (async (mail: Parameters<typeof sendMail>[0]) => {
    await sendMail(mail);
    process.kill(process.pid, 'SIGKILL');
  }) as typeof transport.sendMail;
  return transport;
}) as typeof nodemailer.createTransport;

const config = loadConfig(process.env);
const database = config.databaseUrl
  ? await openPostgres(config.databaseUrl)
  : await openPGlite(config.dataDir);
const quiet = { info() {}, warn() {} } as unknown as FastifyBaseLogger;
const sender = new EmailSender(database.db, systemClock(), quiet, {
  smtpUrl: config.smtpUrl,
  publicBaseUrl: config.publicBaseUrl,
  mailFrom: config.mailFrom,
});
await sender.run();
// Reached only when there was nothing to send.
process.exit(3);
