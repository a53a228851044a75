import type { FastifyBaseLogger } from 'fastify';
import Stripe from 'stripe';
import type { ChangeFeed } from '../platform/change-feed.ts';
import { type Db, type Tx, withTx } from '../platform/db.ts';
import { AppError } from '../platform/errors.ts';
import { recordProcessorEvent } from './inbound.queries.ts';
import type { ProcessorEvent } from './processor.adapter.ts';
import type { Processors } from './processors.adapter.ts';

/** What an event handler may use beside its transaction. */
export interface EventContext {
  now: number;
  changes: ChangeFeed;
  processors: Processors;
  log: FastifyBaseLogger;
}

/**
 * Applies one event inside the transaction that records its id. It must be safe against any
 * order of arrival: it moves state only along allowed transitions and ignores what would move
 * it backwards. It must not call the processor (on PGlite a processor call from inside a
 * transaction waits forever); work that needs one is left for a job.
 */
export type EventHandler = (tx: Tx, event: ProcessorEvent, context: EventContext) => Promise<void>;
export type EventHandlers = Record<string, EventHandler>;

/** Seconds an event's signature stays valid after its timestamp. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The header the processor signs with; the service's own name for it first. */
export const SIGNATURE_HEADERS = ['payment-processor-signature', 'stripe-signature'] as const;

/**
 * Checks the signature (`t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, 300 s tolerance) with the
 * processor's own verifier, and answers the event. Anything wrong is 400 and changes nothing.
 */
export function verifyEvent(rawBody: string, signature: string | undefined, secrets: string[], now: number) {
  if (!signature) throw new AppError('bad_request', 'the payment-processor-signature header is missing');
  for (const secret of secrets) {
    try {
      const event = Stripe.webhooks.constructEvent(
        rawBody,
        signature,
        secret,
        SIGNATURE_TOLERANCE_SECONDS,
        undefined,
        now,
      );
      return event as unknown as ProcessorEvent;
    } catch {}
  }
  throw new AppError('bad_request', 'the event signature does not match, or it is too old');
}

/** Signs a body as the processor would, for the simulated processor's events and for tests. */
export function signEvent(rawBody: string, secret: string, now: number): string {
  return Stripe.webhooks.generateTestHeaderString({
    payload: rawBody,
    secret,
    timestamp: Math.floor(now / 1000),
  });
}

/**
 * The one inbound path of the processor's events: verified, recorded by id and applied in one
 * transaction, so each event id is applied once however often it is delivered; an unknown type
 * is recorded and ignored.
 */
export class InboundEvents {
  private readonly db: Db;
  private readonly handlers: EventHandlers;
  private readonly context: () => EventContext;

  constructor(db: Db, handlers: EventHandlers, context: () => EventContext) {
    this.db = db;
    this.handlers = handlers;
    this.context = context;
  }

  async receive(
    rawBody: string,
    signature: string | undefined,
  ): Promise<'applied' | 'duplicate' | 'ignored'> {
    const context = this.context();
    const event = verifyEvent(rawBody, signature, context.processors.webhookSecrets, context.now);
    return this.apply(event, context);
  }

  /** Signs and receives an event of the simulated processor: the same path as one sent over HTTP. */
  async deliver(event: ProcessorEvent): Promise<'applied' | 'duplicate' | 'ignored'> {
    const context = this.context();
    const body = JSON.stringify(event);
    return this.receive(body, signEvent(body, context.processors.webhookSecret, context.now));
  }

  private apply(event: ProcessorEvent, context: EventContext) {
    return withTx(this.db, async (tx) => {
      const recorded = await recordProcessorEvent(tx, event.id, event.type);
      if (!recorded) return 'duplicate' as const;
      const handler = this.handlers[event.type];
      if (!handler) return 'ignored' as const;
      await handler(tx, event, context);
      return 'applied' as const;
    });
  }
}

/** Handler maps of several areas as one: where two handle one type (a checkout session), both run, in order. */
export function combineHandlers(...maps: EventHandlers[]): EventHandlers {
  const combined: Record<string, EventHandler[]> = {};
  for (const map of maps) {
    for (const [type, handler] of Object.entries(map)) combined[type] = [...(combined[type] ?? []), handler];
  }
  return Object.fromEntries(
    Object.entries(combined).map(([type, handlers]) => [
      type,
      async (tx: Tx, event: ProcessorEvent, context: EventContext) => {
        for (const handler of handlers) await handler(tx, event, context);
      },
    ]),
  );
}
