import type { EventContext, EventHandler, EventHandlers } from '../payments/inbound.events.ts';
import type { ProcessorEvent } from '../payments/processor.adapter.ts';
import type { Tx } from '../platform/db.ts';
import { isUuid } from '../platform/schemas.ts';
import type { DepositStatus } from '../schema.ts';
import {
  type DepositOutcome,
  depositOfEvent,
  expireDeposit,
  saveCard,
  settleDeposit,
} from './deposit-outcomes.service.ts';
import type { StoredDeposit } from './deposits.queries.ts';

type EventObject = ProcessorEvent['data']['object'];

/** The booking a payment was made for, as its metadata names it; undefined when it names none. */
function bookingOf(object: EventObject) {
  const id = object.metadata?.booking_id;
  const businessId = object.metadata?.business_id;
  return typeof id === 'string' && typeof businessId === 'string' && isUuid(id) && isUuid(businessId)
    ? { id, businessId }
    : undefined;
}

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

/** Written into the audit rows of what an event changed. */
const auditMeta = (event: ProcessorEvent) => ({ event_id: event.id, event_type: event.type });

/** The money an object reports in its `field` (`amount_received`, `amount_total`, ...), with its currency. */
const moneyOf = (object: EventObject, field: string) => ({
  amountCents: typeof object[field] === 'number' ? (object[field] as number) : null,
  currency: text(object.currency) ?? null,
});

/** Settles a deposit on an event, and says in the log when the event's money was not the deposit's. */
async function settle(
  tx: Tx,
  deposit: StoredDeposit,
  outcome: DepositOutcome,
  event: ProcessorEvent,
  context: EventContext,
) {
  if ((await settleDeposit(tx, deposit, outcome, context.now)) === 'amount_mismatch') {
    context.log.warn(
      { event: event.id, type: event.type, booking_id: deposit.booking_id, received: outcome.received },
      'a payment of another amount or currency than its deposit; the deposit is left as it is',
    );
  }
}

/**
 * A payment intent's event, moving its deposit to the status `to` decides (null: no move); money
 * taken or held counts only as `amountField` reports it.
 */
const onPaymentIntent =
  (to: (deposit: StoredDeposit) => DepositStatus | null, amountField?: string): EventHandler =>
  async (tx, event, context) => {
    const intent = event.data.object;
    const deposit = await depositOfEvent(tx, { paymentId: intent.id, booking: bookingOf(intent) });
    const status = deposit && to(deposit);
    if (!deposit || !status) return;
    await settle(
      tx,
      deposit,
      {
        to: status,
        changes: { processor_payment_id: intent.id },
        meta: auditMeta(event),
        ...(amountField && { received: moneyOf(intent, amountField) }),
      },
      event,
      context,
    );
  };

/** A checkout session's event; the subscription checkouts of developer billing are not ours. */
const onPaymentCheckout =
  (
    apply: (deposit: StoredDeposit, session: EventObject, ...rest: Parameters<EventHandler>) => Promise<void>,
  ): EventHandler =>
  async (tx, event, context) => {
    const session = event.data.object;
    if (session.mode !== 'payment') return;
    const deposit = await depositOfEvent(tx, { checkoutId: session.id, booking: bookingOf(session) });
    if (deposit) await apply(deposit, session, tx, event, context);
  };

/**
 * The processor's events about deposits: payments, holds, saved cards and payment links. Each
 * finds its deposit by the processor's id or the booking of its metadata and ignores what is not
 * ours; the status table decides what a late or repeated event may still change.
 */
export const depositEventHandlers: EventHandlers = {
  // A hold's intent succeeds when it is captured.
  'payment_intent.succeeded': onPaymentIntent(
    (deposit) => (deposit.type === 'charge' ? 'paid' : 'captured'),
    'amount_received',
  ),
  'payment_intent.amount_capturable_updated': onPaymentIntent(() => 'held', 'amount_capturable'),
  // The booking keeps waiting: the guest may try another card until the deadline.
  'payment_intent.payment_failed': onPaymentIntent(() => 'failed'),
  // Released elsewhere (the processor's dashboard, an authorisation that lapsed), or abandoned.
  'payment_intent.canceled': onPaymentIntent((deposit) =>
    deposit.status === 'held' ? 'released' : 'failed',
  ),

  'setup_intent.succeeded': async (tx, event) => {
    const setup = event.data.object;
    const paymentMethodId = text(setup.payment_method);
    if (!paymentMethodId) return;
    const deposit = await depositOfEvent(tx, { setupId: setup.id, booking: bookingOf(setup) });
    if (!deposit) return;
    await saveCard(
      tx,
      deposit,
      { customerId: text(setup.customer) ?? null, paymentMethodId },
      auditMeta(event),
    );
  },

  'checkout.session.completed': onPaymentCheckout(async (deposit, session, tx, event, context) => {
    // Paid later (a bank transfer) arrives as another event; until then it is not paid.
    if (session.payment_status !== 'paid') return;
    const paymentId = text(session.payment_intent);
    await settle(
      tx,
      deposit,
      {
        to: 'paid',
        changes: paymentId ? { processor_payment_id: paymentId } : {},
        meta: auditMeta(event),
        received: moneyOf(session, 'amount_total'),
      },
      event,
      context,
    );
  }),

  'checkout.session.expired': onPaymentCheckout((deposit, _session, tx, event) =>
    expireDeposit(tx, deposit, auditMeta(event)),
  ),
};
