import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
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

const html = (reply: FastifyReply, body: string) => reply.type('text/html; charset=utf-8').send(body);

/** A route's texts in the API reference. */
interface Texts {
  operationId: string;
  summary: string;
  description?: string;
}

/** What a simulator route is: its texts and the schemas of what it is sent. */
interface SimulatorRoute<P extends TSchema, Q extends TSchema, B extends TSchema> extends Texts {
  params: P;
  querystring?: Q;
  body?: B;
}

/** What a simulator route was sent, checked against its schemas. */
interface Sent<P extends TSchema, Q extends TSchema, B extends TSchema> {
  params: Static<P>;
  query: Static<Q>;
  body: Static<B>;
}

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

  /** A page of an object the simulated processor holds, in HTML, public as its own pages are. */
  const page = <P extends TSchema, Q extends TSchema>(
    url: string,
    {
      render,
      ...schema
    }: SimulatorRoute<P, Q, TSchema> & { render: (request: Sent<P, Q, TSchema>) => Promise<string> },
  ) =>
    app.get(
      url,
      { schema: { tags: TAGS, security: [], ...schema, response: { 200: Html, ...Refusals } } },
      async (request, reply) => html(reply, await render(request as unknown as Sent<P, Q, TSchema>)),
    );

  /**
   * An action a page posts: answers the moved object, or sends a page's form back to the page it
   * came from, the object's page (`back`, or the action's URL up to the object's id).
   */
  const action = <P extends TSchema, B extends TSchema>(
    url: string,
    {
      act,
      back,
      ...schema
    }: SimulatorRoute<P, TSchema, B> & {
      act: (request: Sent<P, TSchema, B>) => Promise<StoredObject>;
      back?: (request: Sent<P, TSchema, B>) => string;
    },
  ) =>
    app.post(
      url,
      {
        schema: {
          tags: TAGS,
          security: [],
          ...schema,
          response: { 200: ProcessorObject, 303: Type.Null(), ...Refusals },
        },
      },
      async (request, reply) => {
        const sent = request as unknown as Sent<P, TSchema, B>;
        const object = await act(sent);
        if (!isForm(request)) return object;
        const { id } = request.params as { id: string };
        const page = back ? back(sent) : `${url.slice(0, url.indexOf('/:id'))}/${id}`;
        return reply.redirect(page, 303);
      },
    );

  /**
   * An intent's page and the confirmation it posts; both need the intent's client secret, which
   * the page is opened with and its form sends back.
   */
  const intentRoutes = <B extends TSchema>(
    kind: 'payment_intent' | 'setup_intent',
    ids: string,
    {
      show,
      confirm,
    }: {
      show: Texts & { render: (intent: StoredObject, clientSecret: string) => string };
      confirm: Texts & {
        body: B;
        move: (id: string, body: Static<B> & { client_secret: string }) => Promise<StoredObject>;
      };
    },
  ) => {
    type Confirmation = Static<B> & { client_secret: string };
    const path = `${kind}s` as const;
    const { render, ...showTexts } = show;
    const { move, ...confirmRoute } = confirm;
    page(`${PREFIX}/${path}/:id`, {
      ...showTexts,
      params: IdParam(ids),
      querystring: SecretQuery,
      render: async ({ params, query }) =>
        render(
          await intentWithSecret(simulator(), kind, params.id, query.client_secret),
          query.client_secret,
        ),
    });
    action(`${PREFIX}/${path}/:id/confirm`, {
      ...confirmRoute,
      params: IdParam(ids),
      act: ({ params, body }) => move(params.id, body as Confirmation),
      back: ({ params, body }) => intentPagePath(path, params.id, (body as Confirmation).client_secret),
    });
  };

  intentRoutes('payment_intent', '`pi_...`', {
    show: {
      operationId: 'showSimulatedPaymentIntent',
      summary: "A guest's test checkout of a payment intent: the amount, Pay or Decline",
      render: paymentIntentPage,
    },
    confirm: {
      operationId: 'confirmSimulatedPaymentIntent',
      summary: 'Pay or decline a payment intent, as the guest would',
      description:
        'Manual capture -> `requires_capture` and `payment_intent.amount_capturable_updated`; automatic -> `succeeded` and `payment_intent.succeeded`; `decline` -> `payment_intent.payment_failed` with `last_payment_error`. Wrong client secret or unknown id: 404; an intent no longer waiting for a card: 409.',
      body: example(
        Type.Object({ client_secret: ClientSecret, outcome: Outcome }, { additionalProperties: false }),
        { client_secret: 'pi_1_secret_2', outcome: 'succeed' },
      ),
      move: (id, body) => confirmPaymentIntent(simulator(), id, body),
    },
  });

  intentRoutes('setup_intent', '`seti_...`', {
    show: {
      operationId: 'showSimulatedSetupIntent',
      summary: 'Save a card for a later hold: Save card or Decline',
      render: setupIntentPage,
    },
    confirm: {
      operationId: 'confirmSimulatedSetupIntent',
      summary: 'Save a card (or decline) on a setup intent, as the guest would',
      description:
        '`succeed` saves `payment_method` (default `pm_card_visa`; `pm_card_chargeDeclined` is saved but its hold is declined later) and sends `setup_intent.succeeded`; `decline` sends `setup_intent.setup_failed`.',
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
      move: (id, body) => confirmSetupIntent(simulator(), id, body),
    },
  });

  page(`${PREFIX}/checkout/:id`, {
    operationId: 'showSimulatedCheckout',
    summary: 'A checkout session (a payment link or a plan): Pay or Let it expire',
    params: IdParam('`cs_test_...`'),
    render: async ({ params }) => checkoutPage(await checkoutSession(simulator(), params.id)),
  });

  action(`${PREFIX}/checkout/:id/complete`, {
    operationId: 'completeSimulatedCheckout',
    summary: 'Pay a checkout session',
    description:
      "Payment mode: a paid payment intent with the session's metadata, then `checkout.session.completed` (`payment_status` `paid`, `payment_intent`). Subscription mode: an active `sub_...` one month long, then `checkout.session.completed` (`customer`, `subscription`, metadata) and `customer.subscription.updated`. A session no longer open, or past `expires_at`: 409.",
    params: IdParam('`cs_test_...`'),
    act: ({ params }) => completeCheckout(simulator(), params.id),
  });

  action(`${PREFIX}/checkout/:id/expire`, {
    operationId: 'expireSimulatedCheckout',
    summary: 'Let a checkout session expire (`checkout.session.expired`)',
    params: IdParam('`cs_test_...`'),
    act: ({ params }) => expireCheckout(simulator(), params.id),
  });

  page(`${PREFIX}/connect/:id`, {
    operationId: 'showSimulatedOnboarding',
    summary: "A connected account's onboarding: Complete",
    params: IdParam('the onboarding link'),
    render: async ({ params }) => {
      const { link, account } = await onboardingState(simulator(), params.id);
      return onboardingPage(link, account);
    },
  });

  action(`${PREFIX}/connect/:id/complete`, {
    operationId: 'completeSimulatedOnboarding',
    summary: 'Complete onboarding: details submitted, charges and payouts enabled (`account.updated`)',
    params: IdParam('the onboarding link'),
    act: ({ params }) => completeOnboarding(simulator(), params.id),
  });

  page(`${PREFIX}/portal/:id`, {
    operationId: 'showSimulatedPortal',
    summary: "A developer's billing portal: cancel, or fail and pay an invoice",
    params: IdParam('`bps_...`'),
    render: async ({ params }) => {
      const { session, subscription, invoice } = await portalState(simulator(), params.id);
      return portalPage(session, subscription, invoice);
    },
  });

  action(`${PREFIX}/portal/:id/:action`, {
    operationId: 'actOnSimulatedPortal',
    summary: "Act on the portal's subscription",
    description:
      '`cancel_at_period_end` -> `customer.subscription.updated` (`cancel_at_period_end` true); `cancel_now` -> `customer.subscription.deleted`; `fail_invoice` -> `invoice.payment_failed` and the subscription `past_due`; `pay_invoice` -> `invoice.payment_succeeded` and the subscription `active`. Answers the subscription, or the invoice.',
    params: Type.Object(
      { id: ObjectId('`bps_...`'), action: Type.Enum(PORTAL_ACTIONS) },
      { additionalProperties: false },
    ),
    act: ({ params }) => actInPortal(simulator(), params.id, params.action),
  });
};
