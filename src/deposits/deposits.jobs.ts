import { chargeableAccount } from '../billing/connect.queries.ts';
import type { PaymentIntent } from '../payments/processor.adapter.ts';
import { ProcessorRefusal } from '../payments/processor.adapter.ts';
import type { Clock } from '../platform/clock.ts';
import { withTx } from '../platform/db.ts';
import type { Job } from '../platform/jobs.ts';
import { expireClaimed, recordReversal, settleDeposit } from './deposit-outcomes.service.ts';
import {
  claimExpiredDeposits,
  depositTerms,
  dueHolds,
  dueReversals,
  type StoredDeposit,
} from './deposits.queries.ts';
import { type DepositDeps, processorNamed } from './deposits.service.ts';

const BATCH = 50;

/**
 * Deposits past their deadline: the deposit fails and a booking still waiting is cancelled, its
 * slot free at once, in one transaction over rows claimed with `SKIP LOCKED`; then, outside it,
 * the unpaid payment is cancelled (best effort: a payment made meanwhile arrives as an event and
 * is refunded).
 */
export async function expireUnpaid(deps: DepositDeps, now: number): Promise<number> {
  const claimed = await withTx(deps.db, async (tx) => {
    const rows = await claimExpiredDeposits(tx, new Date(now), BATCH);
    await expireClaimed(tx, rows);
    return rows;
  });
  for (const deposit of claimed) {
    if (!deposit.processor_payment_id) continue;
    await processorNamed(deps.payments, deposit.processor)
      .cancelPaymentIntent(deposit.processor_payment_id, `deposit:${deposit.booking_id}:cancel`)
      .catch((error: unknown) =>
        deps.log.warn({ err: error, booking_id: deposit.booking_id }, 'could not cancel an expired payment'),
      );
  }
  return claimed.length;
}

/** Where a hold's money would go: the business's payment account (none for a sandbox). */
async function destinationOf(deps: DepositDeps, deposit: StoredDeposit): Promise<string | null | undefined> {
  const terms = await depositTerms(deps.db, deposit.business_id);
  if (!terms || terms.is_dev) return null;
  const live = deps.payments.live;
  // A card saved while live deposits went through a processor this server no longer has.
  if (!live || live.name !== deposit.processor) return undefined;
  return (await chargeableAccount(deps.db, deposit.business_id, live.name))?.processor_account_id;
}

/**
 * Places the holds of bookings far ahead on the cards saved for them, 6 days before the start.
 * The processor is called outside any transaction, under the key `deposit:<booking>:hold`, so two
 * processes placing one hold, or a retry after a crash, make one hold. Placed: the deposit is
 * `held` and a waiting booking confirmed. Declined: the deposit fails (`deposit.failed`) and the
 * booking stays `pending` for the staff to decide. Any other failure is tried again next time.
 */
export async function placeDueHolds(deps: DepositDeps, now: number): Promise<number> {
  const due = await dueHolds(deps.db, new Date(now), BATCH);
  for (const deposit of due) {
    const destination = await destinationOf(deps, deposit);
    let intent: PaymentIntent | null = null;
    let refusal: string | null =
      destination === undefined ? 'the business has no payment account that can take charges' : null;
    if (destination !== undefined) {
      try {
        intent = await processorNamed(deps.payments, deposit.processor).createPaymentIntent({
          amountCents: deposit.amount_cents,
          currency: deposit.currency,
          captureMethod: 'manual',
          destinationAccountId: destination,
          metadata: { booking_id: deposit.booking_id, business_id: deposit.business_id },
          idempotencyKey: `deposit:${deposit.booking_id}:hold`,
          savedCard: {
            customerId: deposit.processor_customer_id ?? '',
            paymentMethodId: deposit.processor_payment_method_id ?? '',
          },
        });
      } catch (error) {
        if (!(error instanceof ProcessorRefusal)) {
          deps.log.warn(
            { err: error, booking_id: deposit.booking_id },
            'could not place a hold; trying again later',
          );
          continue;
        }
        refusal = error.message;
      }
    }
    const placed = intent?.status === 'requires_capture';
    const changes = intent ? { processor_payment_id: intent.id } : {};
    await withTx(deps.db, (tx) =>
      settleDeposit(
        tx,
        deposit,
        placed
          ? { to: 'held', changes, meta: { reason: 'hold placed on the saved card' } }
          : {
              to: 'failed',
              changes,
              meta: { reason: refusal ?? `the saved card was declined (payment ${intent?.status})` },
            },
        now,
      ),
    );
  }
  return due.length;
}

type Reversal = { to: 'released' | 'refunded' } | { refused: string };

/** Releases a deposit's hold or refunds its charge; undefined when the processor could not be reached. */
async function giveBack(deps: DepositDeps, deposit: StoredDeposit): Promise<Reversal | undefined> {
  const paymentId = deposit.processor_payment_id;
  if (!paymentId) return { refused: 'the deposit has no payment to give back' };
  const processor = processorNamed(deps.payments, deposit.processor);
  try {
    if (deposit.status === 'held') {
      await processor.cancelPaymentIntent(paymentId, `deposit:${deposit.booking_id}:release`);
      return { to: 'released' };
    }
    await processor.refundPaymentIntent(paymentId, `deposit:${deposit.booking_id}:refund`);
    return { to: 'refunded' };
  } catch (error) {
    if (error instanceof ProcessorRefusal) return { refused: error.message };
    deps.log.warn(
      { err: error, booking_id: deposit.booking_id },
      'could not give a payment back; trying again later',
    );
    return undefined;
  }
}

/**
 * Gives back money that arrived for a cancelled booking: a hold is released, a charge refunded,
 * each under its own idempotency key. A refusal is recorded (`deposit.reversal_refused`) for the
 * staff, not tried forever.
 */
export async function reverseDue(deps: DepositDeps): Promise<number> {
  const due = await dueReversals(deps.db, BATCH);
  for (const deposit of due) {
    const outcome = await giveBack(deps, deposit);
    if (!outcome) continue;
    await withTx(deps.db, (tx) => recordReversal(tx, deposit, outcome));
  }
  return due.length;
}

/** The deposit jobs, in the order a test's `runAll()` wants them: expire, place holds, give back. */
export function depositJobs(deps: DepositDeps, clock: Clock): Job[] {
  return [
    { name: 'deposits.expire', everyMs: 30_000, run: () => expireUnpaid(deps, clock.now()) },
    { name: 'deposits.place_holds', everyMs: 60_000, run: () => placeDueHolds(deps, clock.now()) },
    { name: 'deposits.reverse', everyMs: 30_000, run: () => reverseDue(deps) },
  ];
}
