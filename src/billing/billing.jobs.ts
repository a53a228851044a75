import type { FastifyBaseLogger } from 'fastify';
import { type PaymentProcessor, ProcessorRefusal } from '../payments/processor.adapter.ts';
import type { Processors } from '../payments/processors.adapter.ts';
import type { Clock } from '../platform/clock.ts';
import { type Db, withTx } from '../platform/db.ts';
import type { Job } from '../platform/jobs.ts';
import { expireUnlessClosed } from './billing.service.ts';
import { claimBillingCleanups, deleteBillingCleanup } from './subscription.queries.ts';

const BATCH = 20;
/** How long a claimed cleanup is another process's; a failed one is tried again after it. */
const LEASE_MS = 5 * 60_000;

/**
 * The processor that made an object: the simulated one keeps its objects in the database, so one
 * it does not know is Stripe's.
 */
async function processorOf(processors: Processors, id: string): Promise<PaymentProcessor | null> {
  return (await processors.simulated.find(id)) ? processors.simulated : processors.stripe;
}

/**
 * Does what billing left for the processor (`billing_cleanups`), outside any transaction: expires
 * a plan checkout a concurrent request left open, cancels a subscription a newer one replaced.
 * Done, or refused because there is nothing left to do (expired, completed, cancelled already),
 * the row goes; any other failure is tried again once its lease has passed.
 */
export async function runBillingCleanups(
  db: Db,
  processors: Processors,
  log: FastifyBaseLogger,
  now: number,
): Promise<number> {
  const claimed = await withTx(db, (tx) => claimBillingCleanups(tx, new Date(now), LEASE_MS, BATCH));
  for (const cleanup of claimed) {
    const id = cleanup.processor_object_id;
    const processor = await processorOf(processors, id);
    try {
      if (!processor) throw new ProcessorRefusal('its processor is not configured here');
      if (cleanup.action === 'expire_checkout') await expireUnlessClosed(processor, id);
      else await processor.cancelSubscription(id, `billing:${id}:cancel`);
    } catch (error) {
      if (!(error instanceof ProcessorRefusal)) {
        log.warn({ err: error, object: id, action: cleanup.action }, 'billing cleanup failed; will retry');
        continue;
      }
      log.warn({ object: id, action: cleanup.action, reason: error.message }, 'billing cleanup refused');
    }
    await deleteBillingCleanup(db, id);
  }
  return claimed.length;
}

export function billingJobs(db: Db, processors: Processors, clock: Clock, log: FastifyBaseLogger): Job[] {
  return [
    {
      name: 'billing.cleanups',
      everyMs: 60_000,
      run: () => runBillingCleanups(db, processors, log, clock.now()),
    },
  ];
}
