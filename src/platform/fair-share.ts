import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {
  AbortableOperationOptions,
  DatabaseConnection,
  Driver,
  QueryCompiler,
  TransactionSettings,
} from 'kysely';
import { boundedBy, remainingMs } from './deadline.ts';
import { AppError } from './errors.ts';

/** When a request refused for its business's share may try again, in seconds. */
const BUSY_RETRY_AFTER_SECONDS = 1;

const busy = () =>
  new AppError(
    'business_busy',
    "this business's other requests used its share of the database for all the time this one could wait; retry shortly",
    { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS },
  );

interface Waiter {
  resolve(): void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * At most `limit` holders per business at once; the others wait in turn (first come, first
 * served), each for as long as it may. A business nobody holds has no entry.
 */
export class BusinessSlots {
  readonly #limit: number;
  readonly #held = new Map<string, { holders: number; waiting: Waiter[] }>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * A slot of `business`: at once (undefined) when one is free, else a promise of one, rejected
   * with 503 `business_busy` when none came free within `waitMs` (undefined: no limit).
   */
  enter(business: string, waitMs: number | undefined): Promise<void> | undefined {
    const entry = this.#held.get(business);
    if (!entry) {
      this.#held.set(business, { holders: 1, waiting: [] });
      return undefined;
    }
    if (entry.holders < this.#limit) {
      entry.holders++;
      return undefined;
    }
    if (waitMs !== undefined && waitMs <= 0) return Promise.reject(busy());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, timer: undefined };
      if (waitMs !== undefined) {
        waiter.timer = setTimeout(() => {
          entry.waiting.splice(entry.waiting.indexOf(waiter), 1);
          reject(busy());
        }, waitMs);
      }
      entry.waiting.push(waiter);
    });
  }

  /** Gives a slot of `business` back: to the first still waiting, if any. */
  leave(business: string): void {
    const entry = this.#held.get(business);
    if (!entry) return;
    const next = entry.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve();
    } else if (--entry.holders === 0) {
      this.#held.delete(business);
    }
  }

  /** Holders and waiters of `business` now (tests). */
  usage(business: string): { holders: number; waiting: number } {
    const entry = this.#held.get(business);
    return { holders: entry?.holders ?? 0, waiting: entry?.waiting.length ?? 0 };
  }
}

/**
 * One request's turn at its business's slots. The request takes a slot when it first needs a
 * connection (a cached answer needs none) and keeps it until it is answered and has given every
 * connection back: once its work has begun, a request is never refused halfway through it (a
 * booking made, then its answer refused), nor does it wait behind itself.
 */
class RequestShare {
  /** The business the request acts on, once known; until then its queries count for nobody. */
  business: string | undefined;
  readonly #slots: BusinessSlots;
  readonly #maxWaitMs: number;
  #lent = 0;
  #holding: string | undefined;
  #entering: Promise<void> | undefined;
  #answered = false;

  constructor(slots: BusinessSlots, maxWaitMs: number) {
    this.#slots = slots;
    this.#maxWaitMs = maxWaitMs;
  }

  /** Before a connection is lent: the business's slot, unless the request holds it already. */
  async take(): Promise<void> {
    if (this.#holding === undefined) {
      this.#entering ??= this.#enter();
      await this.#entering;
    }
    this.#lent++;
  }

  async #enter(): Promise<void> {
    const business = this.business!;
    try {
      await this.#slots.enter(business, boundedBy(this.#maxWaitMs, remainingMs()));
      this.#holding = business;
    } finally {
      this.#entering = undefined;
    }
  }

  /** After a connection went back (or was not had). */
  give(): void {
    this.#lent--;
    this.#leaveWhenDone();
  }

  /** The request was answered, or its client went away: its work ends with its last connection. */
  answered(): void {
    this.#answered = true;
    this.#leaveWhenDone();
  }

  #leaveWhenDone(): void {
    if (this.#holding === undefined || !this.#answered || this.#lent > 0) return;
    this.#slots.leave(this.#holding);
    this.#holding = undefined;
  }
}

const requestShare = new AsyncLocalStorage<RequestShare>();
const shareOfRequest = new WeakMap<FastifyRequest, RequestShare>();

/** The share of the request being served, once its business is known. */
function currentShare(): RequestShare | undefined {
  const share = requestShare.getStore();
  return share?.business === undefined ? undefined : share;
}

/**
 * Per process, at most `perBusiness` requests of one business use the database at once (0: no
 * limit); the others wait their turn within their deadline for the database (or `maxWaitMs`,
 * the wait for a connection, when that is sooner), then are answered 503 `business_busy` with
 * `Retry-After`. A request's business is the one its path names (`business_id`), else its
 * credential's, known once the route's guard has run: the guard's own reads count for nobody.
 */
export function registerFairShare(app: FastifyInstance, perBusiness: number, maxWaitMs: number): void {
  if (perBusiness <= 0) return;
  const slots = new BusinessSlots(perBusiness);
  app.decorate('businessSlots', slots);
  app.addHook('onRequest', (request, reply, done) => {
    const share = new RequestShare(slots, maxWaitMs);
    shareOfRequest.set(request, share);
    // The response's `close`, not `onResponse`: an answer its client left before reading is never
    // finished, and a request whose body was read whole is not seen as aborted, so neither hook
    // runs for it, while `close` comes in every case, after the answer or the client's leaving.
    reply.raw.once('close', () => share.answered());
    requestShare.run(share, done);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    const share = shareOfRequest.get(request);
    const named = (request.params as { business_id?: unknown } | undefined)?.business_id;
    if (share)
      share.business = (typeof named === 'string' ? named : request.principal?.businessId) ?? undefined;
    done();
  });
}

/**
 * Counts the rest of a request's database work against a business its route learnt from the body
 * (a partner's call names its merchant there), not from its path or credential.
 */
export function chargeToBusiness(request: FastifyRequest, businessId: string): void {
  const share = shareOfRequest.get(request);
  if (share) share.business = businessId;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Each business's slots of the database (`DB_CONCURRENCY_PER_BUSINESS`); absent when unlimited. */
    businessSlots?: BusinessSlots;
  }
}

/**
 * A driver lending connections only within the business's share of the request that asks (see
 * `registerFairShare`); work outside requests (jobs, start-up) or of no known business is lent
 * at once.
 */
export class FairDriver implements Driver {
  readonly #inner: Driver;
  readonly #shares = new Map<DatabaseConnection, RequestShare>();

  constructor(inner: Driver) {
    this.#inner = inner;
  }

  init = () => this.#inner.init();
  destroy = () => this.#inner.destroy();

  async acquireConnection(options?: AbortableOperationOptions): Promise<DatabaseConnection> {
    const share = currentShare();
    if (!share) return this.#inner.acquireConnection(options);
    await share.take();
    let connection: DatabaseConnection;
    try {
      connection = await this.#inner.acquireConnection(options);
    } catch (error) {
      share.give();
      throw error;
    }
    this.#shares.set(connection, share);
    return connection;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const share = this.#shares.get(connection);
    this.#shares.delete(connection);
    try {
      await this.#inner.releaseConnection(connection);
    } finally {
      share?.give();
    }
  }

  beginTransaction = (connection: DatabaseConnection, settings: TransactionSettings) =>
    this.#inner.beginTransaction(connection, settings);
  commitTransaction = (connection: DatabaseConnection) => this.#inner.commitTransaction(connection);
  rollbackTransaction = (connection: DatabaseConnection) => this.#inner.rollbackTransaction(connection);
  savepoint = (
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> => this.#inner.savepoint!(connection, name, compile);
  rollbackToSavepoint = (
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> => this.#inner.rollbackToSavepoint!(connection, name, compile);
  releaseSavepoint = (
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> => this.#inner.releaseSavepoint!(connection, name, compile);
}
