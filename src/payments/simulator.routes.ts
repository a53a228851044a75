import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, example } from '../platform/schemas.ts';
import type { StoredObject } from './simulated-processor.adapter.ts';
import {
  checkoutPage,
  intentPagePath,
  onboardingPage,
  PREFIX,
  paymentIntentPage,
  portalPage,
  setupIntentPage,
} from './simulator.page.ts';
import {
  actInPortal,
  checkoutSession,
  completeCheckout,
  completeOnboarding,
  confirmPaymentIntent,
  confirmSetupIntent,
  expireCheckout,
  intentWithSecret,
  onboardingState,
  PORTAL_ACTIONS,
  portalState,
  SAVEABLE_CARDS,
  type Simulator,
} from './simulator.service.ts';

const ObjectId = (description: string) =>
  Type.String({ maxLength: 100, pattern: '^[A-Za-z0-9_]{1,100}$', description });
const IdParam = (description: string) =>
  Type.Object({ id: ObjectId(description) }, { additionalProperties: false });
const ClientSecret = Type.String({
  minLength: 1,
  maxLength: 200,
  description: "the intent's `client_secret`",
});
const Outcome = Type.Enum(['succeed', 'decline'], { description: 'what the card does' });
const SecretQuery = Type.Object({ client_secret: ClientSecret }, { additionalProperties: false });
const Html = Type.String({ description: 'an HTML page' });
/** The moved object in the processor's JSON shape. */
const ProcessorObject = Type.Object(
  { id: Type.String(), object: Type.String() },
  { additionalProperties: true, description: "the object as the processor's API shows it" },
);
const Refusals = errorResponses(404, 409, 422, 429);
const TAGS = ['Simulated processor'];

const isForm = (request: FastifyRequest) =>
  String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');

/** A form on a page goes back to the page, which shows where the object stands; curl gets the object. */
function answer(request: FastifyRequest, reply: FastifyReply, object: StoredObject, page: string) {
  if (isForm(request)) return reply.redirect(page, 303);
  return object;
}

const html = (reply: FastifyReply, body: string) => reply.type('text/html; charset=utf-8').send(body);

/**
 * The simulated processor's pages and the actions they post, public like the processor's own
 * hosted pages; they answer only for the simulated processor's objects (404 for anything else).
 */
export const simulatorRoutes: FastifyPluginAsyncTypebox<Pick<Simulator, 'isSandbox'>> = async (
  app,
  options,
) => {
  // The pages' forms post URL-encoded bodies; only these routes take them.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 8 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  const simulator = (): Simulator => ({
    processor: app.payments.simulated,
    events: app.inboundEvents,
    isSandbox: options.isSandbox,
    simulatesLive: app.payments.simulatesLive,
  });

  app.get(
    `${PREFIX}/payment_intents/:id`,
    {
      schema: {
        operationId: 'showSimulatedPaymentIntent',
        tags: TAGS,
        summary: "A guest's test checkout of a payment intent: the amount, Pay or Decline",
        security: [],
        params: IdParam('`pi_...`'),
        querystring: SecretQuery,
        response: { 200: Html, ...Refusals },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const intent = await intentWithSecret(simulator(), 'payment_intent', id, request.query.client_secret);
      return html(reply, paymentIntentPage(intent, request.query.client_secret));
    },
  );

  app.post(
    `${PREFIX}/payment_intents/:id/confirm`,
    {
      schema: {
        operationId: 'confirmSimulatedPaymentIntent',
        tags: TAGS,
        summary: 'Pay or decline a payment intent, as the guest would',
        description:
          'Manual capture -> `requires_capture` and `payment_intent.amount_capturable_updated`; automatic -> `succeeded` and `payment_intent.succeeded`; `decline` -> `payment_intent.payment_failed` with `last_payment_error`. Wrong client secret or unknown id: 404; an intent no longer waiting for a card: 409.',
        security: [],
        params: IdParam('`pi_...`'),
        body: example(
          Type.Object({ client_secret: ClientSecret, outcome: Outcome }, { additionalProperties: false }),
          { client_secret: 'pi_1_secret_2', outcome: 'succeed' },
        ),
        response: { 200: ProcessorObject, 303: Type.Null(), ...Refusals },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const moved = await confirmPaymentIntent(simulator(), id, request.body);
      return answer(request, reply, moved, intentPagePath('payment_intents', id, request.body.client_secret));
    },
  );

  app.get(
    `${PREFIX}/setup_intents/:id`,
    {
      schema: {
        operationId: 'showSimulatedSetupIntent',
        tags: TAGS,
        summary: 'Save a card for a later hold: Save card or Decline',
        security: [],
        params: IdParam('`seti_...`'),
        querystring: SecretQuery,
        response: { 200: Html, ...Refusals },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const intent = await intentWithSecret(simulator(), 'setup_intent', id, request.query.client_secret);
      return html(reply, setupIntentPage(intent, request.query.client_secret));
    },
  );

  app.post(
    `${PREFIX}/setup_intents/:id/confirm`,
    {
      schema: {
        operationId: 'confirmSimulatedSetupIntent',
        tags: TAGS,
        summary: 'Save a card (or decline) on a setup intent, as the guest would',
        description:
          '`succeed` saves `payment_method` (default `pm_card_visa`; `pm_card_chargeDeclined` is saved but its hold is declined later) and sends `setup_intent.succeeded`; `decline` sends `setup_intent.setup_failed`.',
        security: [],
        params: IdParam('`seti_...`'),
        body: example(
          Type.Object(
            {
              client_secret: ClientSecret,
              outcome: Outcome,
              payment_method: Type.Optional(Type.Enum(SAVEABLE_CARDS)),
            },
            { additionalProperties: false },
          ),
          { client_secret: 'seti_1_secret_2', outcome: 'succeed', payment_method: 'pm_card_visa' },
        ),
        response: { 200: ProcessorObject, 303: Type.Null(), ...Refusals },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const moved = await confirmSetupIntent(simulator(), id, request.body);
      return answer(request, reply, moved, intentPagePath('setup_intents', id, request.body.client_secret));
    },
  );

  app.get(
    `${PREFIX}/checkout/:id`,
    {
      schema: {
        operationId: 'showSimulatedCheckout',
        tags: TAGS,
        summary: 'A checkout session (a payment link or a plan): Pay or Let it expire',
        security: [],
        params: IdParam('`cs_test_...`'),
        response: { 200: Html, ...Refusals },
      },
    },
    async (request, reply) => {
      return html(reply, checkoutPage(await checkoutSession(simulator(), request.params.id)));
    },
  );

  app.post(
    `${PREFIX}/checkout/:id/complete`,
    {
      schema: {
        operationId: 'completeSimulatedCheckout',
        tags: TAGS,
        summary: 'Pay a checkout session',
        description:
          "Payment mode: a paid payment intent with the session's metadata, then `checkout.session.completed` (`payment_status` `paid`, `payment_intent`). Subscription mode: an active `sub_...` one month long, then `checkout.session.completed` (`customer`, `subscription`, metadata) and `customer.subscription.updated`. A session no longer open, or past `expires_at`: 409.",
        security: [],
        params: IdParam('`cs_test_...`'),
        response: { 200: ProcessorObject, 303: Type.Null(), ...Refusals },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      return answer(request, reply, await completeCheckout(simulator(), id), `${PREFIX}/checkout/${id}`);
    },
  );

  app.post(
    `${PREFIX}/checkout/:id/expire`,
    {
      schema: {
        operationId: 'expireSimulatedCheckout',
        tags: TAGS,
        summary: 'Let a checkout session expire (`checkout.session.expired`)',
        security: [],
        params: IdParam('`cs_test_...`'),
        response: { 200: ProcessorObject, 303: Type.Null(), ...Refusals },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      return answer(request, reply, await expireCheckout(simulator(), id), `${PREFIX}/checkout/${id}`);
    },
  );

  app.get(
    `${PREFIX}/connect/:id`,
    {
      schema: {
        operationId: 'showSimulatedOnboarding',
        tags: TAGS,
        summary: "A connected account's onboarding: Complete",
        security: [],
        params: IdParam('the onboarding link'),
        response: { 200: Html, ...Refusals },
      },
    },
    async (request, reply) => {
      const { link, account } = await onboardingState(simulator(), request.params.id);
      return html(reply, onboardingPage(link, account));
    },
  );

  app.post(
    `${PREFIX}/connect/:id/complete`,
    {
      schema: {
        operationId: 'completeSimulatedOnboarding',
        tags: TAGS,
        summary: 'Complete onboarding: details submitted, charges and payouts enabled (`account.updated`)',
        security: [],
        params: IdParam('the onboarding link'),
        response: { 200: ProcessorObject, 303: Type.Null(), ...Refusals },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      return answer(request, reply, await completeOnboarding(simulator(), id), `${PREFIX}/connect/${id}`);
    },
  );

  app.get(
    `${PREFIX}/portal/:id`,
    {
      schema: {
        operationId: 'showSimulatedPortal',
        tags: TAGS,
        summary: "A developer's billing portal: cancel, or fail and pay an invoice",
        security: [],
        params: IdParam('`bps_...`'),
        response: { 200: Html, ...Refusals },
      },
    },
    async (request, reply) => {
      const { session, subscription, invoice } = await portalState(simulator(), request.params.id);
      return html(reply, portalPage(session, subscription, invoice));
    },
  );

  app.post(
    `${PREFIX}/portal/:id/:action`,
    {
      schema: {
        operationId: 'actOnSimulatedPortal',
        tags: TAGS,
        summary: "Act on the portal's subscription",
        description:
          '`cancel_at_period_end` -> `customer.subscription.updated` (`cancel_at_period_end` true); `cancel_now` -> `customer.subscription.deleted`; `fail_invoice` -> `invoice.payment_failed` and the subscription `past_due`; `pay_invoice` -> `invoice.payment_succeeded` and the subscription `active`. Answers the subscription, or the invoice.',
        security: [],
        params: Type.Object(
          { id: ObjectId('`bps_...`'), action: Type.Enum(PORTAL_ACTIONS) },
          { additionalProperties: false },
        ),
        response: { 200: ProcessorObject, 303: Type.Null(), ...Refusals },
      },
    },
    async (request, reply) => {
      const { id, action } = request.params;
      return answer(request, reply, await actInPortal(simulator(), id, action), `${PREFIX}/portal/${id}`);
    },
  );
};
