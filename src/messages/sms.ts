import type { FastifyBaseLogger } from 'fastify';
import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import type { BookingView } from '../bookings/bookings.view.ts';
import type { TwilioConfig } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import { type Db, withTx } from '../platform/db.ts';
import type { Job } from '../platform/jobs.ts';
import { maskPhone } from './messages.view.ts';
import {
  type ClaimedMessage,
  claimDueMessages,
  markMessageFailed,
  markMessageSent,
  markMessageWithheld,
} from './sms.queries.ts';
import { SMS_TYPES, type SmsType, smsText } from './sms-texts.ts';

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

/**
 * A failed send with its class (`http_500`, `timeout`, ...), which is all the messages list shows,
 * and whether trying again can help.
 */
export class SmsFailure extends Error {
  readonly failure: string;
  readonly permanent: boolean;
  constructor(failure: string, permanent: boolean, cause: unknown) {
    super(failure, { cause });
    this.failure = failure;
    this.permanent = permanent;
  }
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
function twilioFailure(error: unknown): SmsFailure {
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') {
    // A refusal (a bad number, a blocked recipient) stays a refusal; throttling and outages pass.
    return new SmsFailure(`http_${status}`, status >= 400 && status < 500 && status !== 429, error);
  }
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') return new SmsFailure('timeout', false, error);
  if (code === 'ECONNREFUSED') return new SmsFailure('connection_refused', false, error);
  return new SmsFailure('connection_error', false, error);
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

const MAX_ATTEMPTS = 10;
/** How long a claimed message is kept from other senders: far longer than one call to Twilio. */
const LEASE_MS = 5 * 60_000;
const BATCH = 20;
/** 1, 2, 4 ... minutes after each failed try, at most 6 hours. */
const retryDelayMs = (attempts: number) => Math.min(2 ** (attempts - 1), 360) * 60_000;

const isSmsType = (type: string): type is SmsType => (SMS_TYPES as readonly string[]).includes(type);

/**
 * Sends the outbox's SMS: rendered when sent, in the business's language, through the provider.
 * A failed message is tried again later, up to 10 times, then given up; a refusal is given up at
 * once. A sandbox business's SMS to anyone but the venue's own phone is withheld: logged, never sent.
 */
export class SmsSender {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly log: FastifyBaseLogger;
  private readonly provider: SmsProvider;
  private readonly publicBaseUrl: string;

  constructor(db: Db, clock: Clock, log: FastifyBaseLogger, provider: SmsProvider, publicBaseUrl: string) {
    this.db = db;
    this.clock = clock;
    this.log = log;
    this.provider = provider;
    this.publicBaseUrl = publicBaseUrl;
  }

  job(): Job {
    return { name: 'sms', everyMs: 10_000, run: () => this.run() };
  }

  /** Sends the SMS due; answers how many it tried. */
  async run(): Promise<number> {
    const now = this.clock.now();
    const claimed = await withTx(this.db, (tx) =>
      claimDueMessages(tx, 'sms', new Date(now), new Date(now + LEASE_MS), MAX_ATTEMPTS, BATCH),
    );
    for (const message of claimed) await this.deliver(message);
    return claimed.length;
  }

  private async deliver(message: ClaimedMessage): Promise<void> {
    const logged = { message_id: message.id, to: maskPhone(message.to_address), type: message.type };
    if (message.withheld) {
      this.log.info(logged, "SMS of a sandbox business withheld: the recipient is not the venue's own phone");
      await markMessageWithheld(this.db, message.id, new Date(this.clock.now()));
      return;
    }
    try {
      await this.provider.send({ to: message.to_address, body: this.render(message), messageId: message.id });
      await markMessageSent(this.db, message.id, new Date(this.clock.now()));
    } catch (error) {
      const failure = error instanceof SmsFailure ? error : new SmsFailure('send_error', false, error);
      const giveUp = failure.permanent || message.attempts >= MAX_ATTEMPTS;
      this.log.warn(
        { ...logged, attempts: message.attempts, failure: failure.failure, err: failure.cause },
        'SMS could not be sent',
      );
      const now = this.clock.now();
      await markMessageFailed(
        this.db,
        message.id,
        failure.failure,
        giveUp ? null : new Date(now + retryDelayMs(message.attempts)),
        new Date(now),
      );
    }
  }

  private render(message: ClaimedMessage): string {
    if (!isSmsType(message.type)) {
      throw new SmsFailure('no_sms_text', true, new Error(`no SMS text for ${message.type}`));
    }
    const booking = message.payload as BookingView;
    return smsText({
      type: message.type,
      language: message.notification_language,
      venueName: message.business_name,
      timezone: message.timezone,
      startsAt: booking.starts_at,
      party: booking.capacity,
      code: booking.confirmation_code,
      link: `${this.publicBaseUrl}/book/${message.slug}?manage=${booking.confirmation_code}`,
    });
  }
}
