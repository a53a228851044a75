import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db.ts';
import { type ClaimedMessage, findMessageVenue, type MessageType } from './outbox.queries.ts';
import { OutboxSender, SendFailure } from './outbox-sender.jobs.ts';
import {
  type BookingPayload,
  messageLanguage,
  type OfferPayload,
  type RenderedEmail,
  renderEmail,
} from './render.view.ts';
import { venueInHeader } from './subject.view.ts';

export { insertEmail as enqueueEmail, type NewEmail } from './outbox.queries.ts';
export { venueInSubject } from './subject.view.ts';

/**
 * An SMTP failure as a class: the server's reply code (`smtp_550`), or what went wrong on the way.
 * Each is tried again, a refusal too: a mail server's 5xx is as often its own setup (relaying,
 * authentication) as a dead mailbox, and ten tries over some eight hours give its operator time.
 */
function smtpFailure(error: unknown): SendFailure {
  const { responseCode, code } = error as { responseCode?: unknown; code?: unknown };
  if (typeof responseCode === 'number') return new SendFailure(`smtp_${responseCode}`, false, error);
  if (code === 'ETIMEDOUT') return new SendFailure('timeout', false, error);
  if (code === 'EAUTH') return new SendFailure('smtp_auth', false, error);
  if (code === 'EDNS') return new SendFailure('dns_error', false, error);
  if (code === 'ETLS') return new SendFailure('tls_error', false, error);
  return new SendFailure('connection_error', false, error);
}

/**
 * Sends the outbox's email (`OutboxSender`): over SMTP when `SMTP_URL` is set, otherwise to the
 * log (recipient and subject only: a message may carry a payment link) and marked sent. A message
 * told by a change (`payload`) is rendered now, from the business's profile and language as they
 * are; a payment link or an invitation was written rendered. The row's id is the Message-ID, so a
 * message sent again after a crash between the send and its record reads as the same one. A
 * sandbox business's email to anyone but its developer and its active members (those who joined;
 * an invitation goes to the person it invites) is withheld. The venue's name in a header is a
 * display name nodemailer encodes, cleaned by `venueInHeader` first.
 */
export class EmailSender extends OutboxSender {
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
    super(db, clock, log, 'email');
    this.mailFrom = options.mailFrom;
    this.publicBaseUrl = options.publicBaseUrl;
    this.host = new URL(options.publicBaseUrl).hostname;
    this.transport = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : null;
  }

  protected logged(message: ClaimedMessage) {
    return { to: message.to_address };
  }

  protected failureOf(error: unknown): SendFailure {
    return smtpFailure(error);
  }

  protected async deliver(message: ClaimedMessage): Promise<void> {
    const mail = await this.mailOf(message).catch((error: unknown) => {
      // What cannot be rendered now will not be on the next try either.
      throw error instanceof SendFailure ? error : new SendFailure('render_error', true, error);
    });
    if (this.transport) {
      await this.transport.sendMail(mail);
    } else {
      this.log.info(
        { message_id: message.id, to: message.to_address, subject: mail.subject },
        'email not sent, as SMTP_URL is not set; logged instead',
      );
    }
  }

  /** The mail of a message: as written, or rendered from what it tells. */
  private async mailOf(message: ClaimedMessage): Promise<SendMailOptions> {
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
    if (!venue) throw new SendFailure('business_gone', true);
    const rendered: RenderedEmail = renderEmail({
      type: message.type as MessageType,
      language: messageLanguage(message.type, message.guest_language, venue.notification_language),
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
