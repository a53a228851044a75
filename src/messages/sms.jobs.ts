import type { FastifyBaseLogger } from 'fastify';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import type { BookingView } from '../bookings/bookings.view.ts';
import type { TwilioConfig } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/db.ts';
import { maskPhone } from './messages.view.ts';
import { type ClaimedMessage, findMessageVenue } from './outbox.queries.ts';
import { OutboxSender, SendFailure } from './outbox-sender.jobs.ts';
import { messageLanguage } from './render.view.ts';
import { forgetSmsCounts } from './sms-limits.queries.ts';
import { admitSms } from './sms-limits.service.ts';
import { SMS_TYPES, type SmsType, smsText } from './sms-texts.view.ts';

export interface Sms {
  to: string;
  body: string;
  /** The outbox row's id: names the message in logs and at the provider. */
  messageId: string;
}

/** Where SMS leave the service. */
export interface SmsProvider {
  send(sms: Sms): Promise<void>;
}

/** How long one call to Twilio may take. */
const TWILIO_TIMEOUT_MS = 15_000;

/**
 * Twilio's SDK with its requests sent to `apiBase` instead of Twilio's hosts (a local stand-in in
 * tests): the SDK offers regions and edges, not a base URL, so its request client moves each
 * request's origin and keeps the rest.
 */
class RedirectedRequestClient extends twilio.RequestClient {
  private readonly base: URL;
  constructor(apiBase: string) {
    super({ timeout: TWILIO_TIMEOUT_MS });
    this.base = new URL(apiBase);
  }
  override request<TData>(opts: RequestClient.RequestOptions<TData>) {
    const uri = new URL(opts.uri);
    uri.protocol = this.base.protocol;
    uri.host = this.base.host;
    return super.request<TData>({ ...opts, uri: uri.href });
  }
}

/** `err` as a failure class: Twilio's status, or what went wrong on the way. */
function twilioFailure(error: unknown): SendFailure {
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') {
    // A refusal (a bad number, a blocked recipient) stays a refusal; throttling and outages pass.
    return new SendFailure(`http_${status}`, status >= 400 && status < 500 && status !== 429, error);
  }
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') return new SendFailure('timeout', false, error);
  if (code === 'ECONNREFUSED') return new SendFailure('connection_refused', false, error);
  return new SendFailure('connection_error', false, error);
}

export class TwilioSms implements SmsProvider {
  private readonly client: twilio.Twilio;
  private readonly sender: { from: string } | { messagingServiceSid: string };

  constructor(config: TwilioConfig) {
    this.client = twilio(config.accountSid, config.authToken, {
      httpClient: config.apiBase
        ? new RedirectedRequestClient(config.apiBase)
        : new twilio.RequestClient({ timeout: TWILIO_TIMEOUT_MS }),
    });
    this.sender = config.messagingServiceSid
      ? { messagingServiceSid: config.messagingServiceSid }
      : { from: config.from! };
  }

  async send({ to, body }: Sms): Promise<void> {
    try {
      await this.client.messages.create({ to, body, ...this.sender });
    } catch (error) {
      throw twilioFailure(error);
    }
  }
}

/** Without Twilio: the log, which names the message and the masked recipient, never the text. */
export class LogSms implements SmsProvider {
  private readonly log: FastifyBaseLogger;
  constructor(log: FastifyBaseLogger) {
    this.log = log;
  }
  async send({ to, messageId }: Sms): Promise<void> {
    this.log.info(
      { message_id: messageId, to: maskPhone(to) },
      'SMS not sent, as TWILIO_* is not set; logged instead',
    );
  }
}

export const smsProvider = (config: TwilioConfig | undefined, log: FastifyBaseLogger): SmsProvider =>
  config ? new TwilioSms(config) : new LogSms(log);

const isSmsType = (type: string): type is SmsType => (SMS_TYPES as readonly string[]).includes(type);

/** How long the SMS counters of a past period are kept: beyond any day or month still counted. */
const SMS_COUNTS_KEPT_DAYS = 40;

/**
 * Sends the outbox's SMS (`OutboxSender`), rendered when sent in the business's language, to the
 * number and within the limits `admitSms` lets it go under, through the provider; a refusal is
 * given up at once. A sandbox business sends no SMS at all (withheld, `sandbox`).
 */
export class SmsSender extends OutboxSender {
  private readonly provider: SmsProvider;
  private readonly publicBaseUrl: string;
  private readonly maxPerBusinessPerDay: number;

  constructor(
    db: Db,
    clock: Clock,
    log: FastifyBaseLogger,
    provider: SmsProvider,
    options: { publicBaseUrl: string; smsMaxPerBusinessPerDay: number },
  ) {
    super(db, clock, log, 'sms');
    this.provider = provider;
    this.publicBaseUrl = options.publicBaseUrl;
    this.maxPerBusinessPerDay = options.smsMaxPerBusinessPerDay;
  }

  override async run(): Promise<number> {
    const kept = new Date(this.clock.now() - SMS_COUNTS_KEPT_DAYS * 86_400_000).toISOString().slice(0, 10);
    await forgetSmsCounts(this.db, kept);
    return super.run();
  }

  protected logged(message: ClaimedMessage) {
    return { to: maskPhone(message.to_address) };
  }

  protected failureOf(error: unknown): SendFailure {
    return new SendFailure('send_error', false, error);
  }

  protected async deliver(message: ClaimedMessage): Promise<void> {
    const body = await this.render(message);
    const to = await admitSms(this.db, message, this.clock.now(), this.maxPerBusinessPerDay);
    await this.provider.send({ to, body, messageId: message.id });
  }

  private async render(message: ClaimedMessage): Promise<string> {
    if (message.payload === null && message.body_text !== null) return message.body_text;
    if (!isSmsType(message.type)) throw new SendFailure('no_sms_text', true);
    const venue = message.business_id ? await findMessageVenue(this.db, message.business_id) : undefined;
    if (!venue) throw new SendFailure('business_gone', true);
    const booking = message.payload as BookingView;
    return smsText({
      type: message.type,
      language: messageLanguage(message.type, message.guest_language, venue.notification_language),
      venueName: venue.name,
      timezone: venue.timezone,
      timeFormat: venue.time_format,
      startsAt: booking.starts_at,
      party: booking.capacity,
      code: booking.confirmation_code,
      link: `${this.publicBaseUrl}/book/${venue.slug}?manage=${booking.confirmation_code}`,
    });
  }
}
