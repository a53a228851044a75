import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Clock } from '../platform/clock.ts';
import { type Db, withTx } from '../platform/db.ts';
import { claimDueEmails, markEmailFailed, markEmailSent, markEmailWithheld } from './outbox.queries.ts';

export { insertEmail as enqueueEmail, type NewEmail } from './outbox.queries.ts';

/** The longest venue name a subject line shows. */
const SUBJECT_NAME_CHARS = 60;

/**
 * A business's name as every subject line shows it: the business chooses it, and the mail leaves
 * from the platform's sender, so it must read as a quoted venue name and never as the platform's
 * own words. Control and invisible formatting characters (line breaks, bidirectional overrides)
 * become spaces, runs of spaces one, and a long name is cut at 60 characters with an ellipsis.
 */
export function venueInSubject(name: string): string {
  const clean = name
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...clean];
  const shown =
    chars.length > SUBJECT_NAME_CHARS
      ? `${chars
          .slice(0, SUBJECT_NAME_CHARS - 1)
          .join('')
          .trimEnd()}…`
      : clean;
  return `"${shown}"`;
}

const MAX_ATTEMPTS = 10;
/** How long a claimed message is kept from other senders: far longer than one SMTP exchange. */
const LEASE_MS = 5 * 60_000;
const BATCH = 20;
/** 1, 2, 4 ... minutes after each failed try, at most 6 hours. */
const retryDelayMs = (attempts: number) => Math.min(2 ** (attempts - 1), 360) * 60_000;

/**
 * Sends what `enqueueEmail` wrote into the outbox in the transaction of what it tells: over SMTP
 * when `SMTP_URL` is set, otherwise to the log (recipient and subject only: a message may carry a
 * payment link) and marked sent. A failed message is tried again later, up to 10 times. A sandbox
 * business's message to anyone but its developer and its staff (the emails of its memberships,
 * whatever their status) is withheld: logged the same way, never sent, and marked so.
 */
export class EmailSender {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;
  private readonly from: string;
  private readonly transport: Transporter | null;

  constructor(
    db: Db,
    clock: Clock,
    log: FastifyBaseLogger,
    smtpUrl: string | undefined,
    publicBaseUrl: string,
  ) {
    this.db = db;
    this.clock = clock;
    this.log = log;
    this.from = `Slotwise <no-reply@${new URL(publicBaseUrl).hostname}>`;
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  }

  /** Sends the messages due; answers how many it tried. */
  async run(): Promise<number> {
    const now = this.clock.now();
    const claimed = await withTx(this.db, (tx) =>
      claimDueEmails(tx, new Date(now), new Date(now + LEASE_MS), MAX_ATTEMPTS, BATCH),
    );
    for (const email of claimed) {
      const logged = { email_id: email.id, to: email.to_address, subject: email.subject };
      if (email.withheld) {
        this.log.info(
          logged,
          "email of a sandbox business withheld: the recipient is not the business's developer or staff",
        );
        await markEmailWithheld(this.db, email.id, new Date(this.clock.now()));
        continue;
      }
      try {
        if (this.transport) {
          await this.transport.sendMail({
            from: this.from,
            to: email.to_address,
            subject: email.subject ?? undefined,
            text: email.body_text ?? undefined,
          });
        } else {
          this.log.info(logged, 'email not sent, as SMTP_URL is not set; logged instead');
        }
        await markEmailSent(this.db, email.id, new Date(this.clock.now()));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.log.warn({ ...logged, attempts: email.attempts, err: message }, 'email could not be sent');
        await markEmailFailed(
          this.db,
          email.id,
          message.slice(0, 1000),
          new Date(this.clock.now() + retryDelayMs(email.attempts)),
        );
      }
    }
    return claimed.length;
  }

  close(): void {
    this.transport?.close();
  }
}
