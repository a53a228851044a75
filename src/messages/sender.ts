import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import type { Clock } from '../platform/clock.ts';
import { type Db, withTx } from '../platform/db.ts';
import {
  claimDueMessages,
  findMessageVenue,
  type MessageType,
  markEmailFailed,
  markEmailSent,
  markEmailWithheld,
} from './outbox.queries.ts';
import {
  type BookingPayload,
  type Language,
  type OfferPayload,
  type RenderedEmail,
  renderEmail,
} from './render.ts';
import { venueInHeader } from './subject.ts';

export { insertEmail as enqueueEmail, type NewEmail } from './outbox.queries.ts';
export { venueInSubject } from './subject.ts';

const MAX_ATTEMPTS = 10;
/** How long a claimed message is kept from other senders: far longer than one SMTP exchange. */
const LEASE_MS = 5 * 60_000;
const BATCH = 20;
/** 1, 2, 4 ... minutes after each failed try, at most 6 hours. */
const retryDelayMs = (attempts: number) => Math.min(2 ** (attempts - 1), 360) * 60_000;

type Claimed = Awaited<ReturnType<typeof claimDueMessages>>[number];

/** A message that cannot be rendered, whatever the tries: given up on at once. */
class Unsendable extends Error {}

/**
 * Sends the email messages of the outbox, each written in the transaction of what it tells: over
 * SMTP when `SMTP_URL` is set, otherwise to the log (recipient and subject only: a message may
 * carry a payment link) and marked sent. A message told by a change (`payload`) is rendered now,
 * from the business's profile and language as they are; a payment link or an invitation was
 * written rendered. The row's id is the Message-ID, so a message sent again after a crash between
 * the send and its record reads as the same one. A failed message is tried again later, and given
 * up on (`failed_at`) after 10 tries. A sandbox business's message to anyone but its developer and
 * its staff (the emails of its memberships, whatever their status) is withheld: logged the same
 * way, never sent, and marked so.
 */
export class EmailSender {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;
  private readonly mailFrom: string;
  private readonly publicBaseUrl: string;
  private readonly host: string;
  private readonly transport: Transporter | null;

  constructor(
    db: Db,
    clock: Clock,
    log: FastifyBaseLogger,
    options: { smtpUrl: string | undefined; publicBaseUrl: string; mailFrom: string },
  ) {
    this.db = db;
    this.clock = clock;
    this.log = log;
    this.mailFrom = options.mailFrom;
    this.publicBaseUrl = options.publicBaseUrl;
    this.host = new URL(options.publicBaseUrl).hostname;
    this.transport = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : null;
  }

  /** Sends the messages due; answers how many it tried. */
  async run(): Promise<number> {
    const now = this.clock.now();
    const claimed = await withTx(this.db, (tx) =>
      claimDueMessages(tx, 'email', new Date(now), new Date(now + LEASE_MS), MAX_ATTEMPTS, BATCH),
    );
    for (const message of claimed) await this.send(message);
    return claimed.length;
  }

  private async send(message: Claimed): Promise<void> {
    const logged = { email_id: message.id, type: message.type, to: message.to_address };
    if (message.withheld) {
      this.log.info(
        logged,
        "email of a sandbox business withheld: the recipient is not the business's developer or staff",
      );
      await markEmailWithheld(this.db, message.id, new Date(this.clock.now()));
      return;
    }
    try {
      const mail = await this.mailOf(message);
      if (this.transport) {
        await this.transport.sendMail(mail);
      } else {
        this.log.info(
          { ...logged, subject: mail.subject },
          'email not sent, as SMTP_URL is not set; logged instead',
        );
      }
      await markEmailSent(this.db, message.id, new Date(this.clock.now()));
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      const givenUp = error instanceof Unsendable || message.attempts >= MAX_ATTEMPTS;
      this.log.warn(
        { ...logged, attempts: message.attempts, err: text, given_up: givenUp },
        'email could not be sent',
      );
      const now = this.clock.now();
      await markEmailFailed(
        this.db,
        message.id,
        text.slice(0, 1000),
        givenUp ? null : new Date(now + retryDelayMs(message.attempts)),
        new Date(now),
      );
    }
  }

  /** The mail of a message: as written, or rendered from what it tells. */
  private async mailOf(message: Claimed): Promise<SendMailOptions> {
    const common = { to: message.to_address, messageId: `<${message.id}@${this.host}>` };
    if (message.payload === null || message.type === 'notice') {
      return {
        ...common,
        from: { name: 'Slotwise', address: this.mailFrom },
        subject: message.subject ?? undefined,
        text: message.body_text ?? undefined,
      };
    }
    const venue = message.business_id ? await findMessageVenue(this.db, message.business_id) : undefined;
    if (!venue) throw new Unsendable('the business of the message is gone');
    const rendered: RenderedEmail = renderEmail({
      type: message.type as MessageType,
      language: venue.notification_language as Language,
      venue,
      payload: message.payload as BookingPayload | OfferPayload,
      sequence: message.sequence,
      publicBaseUrl: this.publicBaseUrl,
      mailFrom: this.mailFrom,
    });
    const invite = rendered.ics;
    return {
      ...common,
      from: { name: venueInHeader(venue.name), address: this.mailFrom },
      ...(venue.public_email ? { replyTo: venue.public_email } : {}),
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      ...(invite
        ? {
            icalEvent: { method: invite.method, content: invite.content },
            attachments: [
              {
                filename: 'invite.ics',
                content: invite.content,
                contentType: `text/calendar; charset=utf-8; method=${invite.method}`,
              },
            ],
          }
        : {}),
    };
  }

  close(): void {
    this.transport?.close();
  }
}
