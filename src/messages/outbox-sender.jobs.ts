import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../platform/clock.ts';
import { type Db, withTx } from '../platform/db.ts';
import type { Job } from '../platform/jobs.ts';
import type { WithheldClass } from '../schema.ts';
import {
  type ClaimedMessage,
  claimDueMessages,
  markMessageFailed,
  markMessageSent,
  markMessageWithheld,
} from './outbox.queries.ts';

const MAX_ATTEMPTS = 10;
/** How long a claimed message is kept from other senders: far longer than one SMTP exchange or API call. */
const LEASE_MS = 5 * 60_000;
const BATCH = 20;
/** 1, 2, 4 ... minutes after each failed try, at most 6 hours. */
const retryDelayMs = (attempts: number) => Math.min(2 ** (attempts - 1), 360) * 60_000;

/**
 * A failed send: its class (`http_500`, `timeout`, `smtp_550`...), which is all the messages list
 * shows of it, never the peer's words; and whether trying again can help.
 */
export class SendFailure extends Error {
  readonly failure: string;
  readonly permanent: boolean;
  constructor(failure: string, permanent: boolean, cause?: unknown) {
    super(failure, { cause });
    this.failure = failure;
    this.permanent = permanent;
  }
}

/** A message held back by a rule instead of sent: listed `withheld` with its class, never tried again. */
export class Withheld extends Error {
  readonly withheld: WithheldClass;
  constructor(withheld: WithheldClass) {
    super(withheld);
    this.withheld = withheld;
  }
}

/**
 * Sends one channel's messages of the outbox, each written in the transaction of what it tells.
 * Each run claims the due messages under a lease, so any number of processes may run it and a
 * process dying mid-send leaves its messages to the next run once the lease ends. A failed message
 * is tried again with a growing delay and given up on (`failed_at`) after 10 tries, or at once when
 * the failure is permanent. A message is withheld (logged, never sent, and marked with its class)
 * when it is a sandbox business's message to anyone outside it (`sandbox`; who is outside depends
 * on the channel: `claimDueMessages`), or when the channel's `deliver` throws `Withheld`.
 */
export abstract class OutboxSender {
  protected readonly db: Db;
  protected readonly clock: Clock;
  protected readonly log: FastifyBaseLogger;
  private readonly channel: 'email' | 'sms';

  constructor(db: Db, clock: Clock, log: FastifyBaseLogger, channel: 'email' | 'sms') {
    this.db = db;
    this.clock = clock;
    this.log = log;
    this.channel = channel;
  }

  /** Sends the message, or throws (a `SendFailure` when the failure has a class). */
  protected abstract deliver(message: ClaimedMessage): Promise<void>;

  /** What the log says of a message: never its text, which may carry a link only its guest may use. */
  protected abstract logged(message: ClaimedMessage): Record<string, unknown>;

  /** A failure that is not a `SendFailure` yet, classed by the channel. */
  protected abstract failureOf(error: unknown): SendFailure;

  job(): Job {
    return { name: this.channel, everyMs: 10_000, run: () => this.run() };
  }

  /** Sends the messages due; answers how many it tried. */
  async run(): Promise<number> {
    const now = this.clock.now();
    const claimed = await withTx(this.db, (tx) =>
      claimDueMessages(tx, this.channel, new Date(now), new Date(now + LEASE_MS), MAX_ATTEMPTS, BATCH),
    );
    // Oldest first, as UPDATE ... RETURNING answers in no order: under a cap, the first written goes.
    claimed.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
    for (const message of claimed) await this.send(message);
    return claimed.length;
  }

  private async send(message: ClaimedMessage): Promise<void> {
    const logged = { message_id: message.id, type: message.type, ...this.logged(message) };
    const withhold = async (withheld: WithheldClass) => {
      this.log.info({ ...logged, withheld }, `${this.channel} withheld, not sent`);
      await markMessageWithheld(this.db, message.id, withheld, new Date(this.clock.now()));
    };
    if (message.withheld) {
      await withhold('sandbox');
      return;
    }
    try {
      await this.deliver(message);
      await markMessageSent(this.db, message.id, new Date(this.clock.now()));
    } catch (error) {
      if (error instanceof Withheld) {
        await withhold(error.withheld);
        return;
      }
      const failure = error instanceof SendFailure ? error : this.failureOf(error);
      const givenUp = failure.permanent || message.attempts >= MAX_ATTEMPTS;
      this.log.warn(
        {
          ...logged,
          attempts: message.attempts,
          failure: failure.failure,
          err: failure.cause,
          given_up: givenUp,
        },
        `${this.channel} could not be sent`,
      );
      const now = this.clock.now();
      await markMessageFailed(
        this.db,
        message.id,
        failure.failure,
        givenUp ? null : new Date(now + retryDelayMs(message.attempts)),
        new Date(now),
      );
    }
  }
}
