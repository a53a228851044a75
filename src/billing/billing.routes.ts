import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { preValidationAsyncHookHandler } from 'fastify';
import { Type } from 'typebox';
import { principalOf, requireBusiness, requireDeveloperForBilling } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { commitWith } from '../platform/idempotency.ts';
import { errorResponses, example, Nullable } from '../platform/schemas.ts';
import { openCheckout, openPortal, PAID_PLANS } from './billing.service.ts';
import { connectStatus, startOnboarding } from './connect.service.ts';

const ReturnUrl = (description: string) =>
  Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000, description }));
const DEFAULT_URL = "defaults to the API's PUBLIC_BASE_URL";

const ConnectStatus = Type.Object({
  connected: Type.Boolean({ description: 'onboarding is complete and the account takes charges' }),
  details_submitted: Type.Boolean(),
  charges_enabled: Type.Boolean(),
  payouts_enabled: Type.Boolean(),
  connect_id: Nullable(Type.String({ description: 'the account at the payment processor (`acct_...`)' })),
});

/** Every field of these bodies is optional: a call without a body is a call with an empty one. */
const noBodyIsEmpty: preValidationAsyncHookHandler = async (request) => {
  request.body ??= {};
};

export const billingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Billing'] });

  const home = app.config.publicBaseUrl;

  app.post(
    '/v1/developer/billing/checkout',
    {
      onRequest: requireDeveloperForBilling,
      schema: {
        operationId: 'createBillingCheckout',
        tags: ['Billing'],
        summary: "Buy a plan: a checkout page of the payment processor's",
        description:
          'Paying it makes the subscription `active` on the plan (the processor tells the service with `checkout.session.completed`). A running subscription is changed or cancelled in the billing portal instead (409). Open while past due. 503 `billing_not_configured` when the server has no payment processor for billing.',
        body: example(
          Type.Object(
            {
              plan: Type.Enum(PAID_PLANS),
              success_url: ReturnUrl(`where the payer goes after paying; ${DEFAULT_URL}`),
              cancel_url: ReturnUrl(`where the payer goes on giving up; ${DEFAULT_URL}`),
            },
            { additionalProperties: false },
          ),
          {
            plan: 'pro',
            success_url: 'https://example.com/billing/done',
            cancel_url: 'https://example.com/billing',
          },
        ),
        response: { 200: Type.Object({ checkout_url: Type.String() }), ...errorResponses(503) },
      },
    },
    async (request, reply) =>
      openCheckout(
        app.db,
        app.payments.forBilling(),
        request.principal!.developerId!,
        {
          plan: request.body.plan,
          successUrl: request.body.success_url ?? home,
          cancelUrl: request.body.cancel_url ?? home,
        },
        commitWith(request, reply, 200),
      ),
  );

  app.post(
    '/v1/developer/billing/portal',
    {
      onRequest: requireDeveloperForBilling,
      preValidation: noBodyIsEmpty,
      schema: {
        operationId: 'createBillingPortal',
        tags: ['Billing'],
        summary: "The payment processor's billing portal: cancel, or pay what is past due",
        description:
          'Needs a plan bought first (409 otherwise). Open while past due. 503 `billing_not_configured` when the server has no payment processor for billing.',
        body: example(
          Type.Optional(
            Type.Object(
              { return_url: ReturnUrl(`where the portal leads back to; ${DEFAULT_URL}`) },
              {
                additionalProperties: false,
              },
            ),
          ),
          { return_url: 'https://example.com/billing' },
        ),
        response: { 200: Type.Object({ portal_url: Type.String() }), ...errorResponses(503) },
      },
    },
    async (request) =>
      openPortal(
        app.db,
        app.payments.forBilling(),
        request.principal!.developerId!,
        request.body.return_url ?? home,
      ),
  );

  routes.route('POST', '/v1/billing/connect/onboard', {
    onRequest: requireBusiness({ scope: 'admin', allowPastDue: true }),
    preValidation: noBodyIsEmpty,
    operationId: 'startPaymentOnboarding',
    summary: "Connect the business's payment account (made once, then reused): an onboarding link",
    description:
      "Deposits are paid into this account; they are enabled once its onboarding is complete (`deposits_enabled` in the subscription). A sandbox business's account is with the simulated processor, and its deposits need none.",
    body: example(
      Type.Object(
        {
          return_url: ReturnUrl(`where onboarding leads back to; ${DEFAULT_URL}`),
          refresh_url: ReturnUrl(`where an expired link leads, to ask for a new one; ${DEFAULT_URL}`),
        },
        { additionalProperties: false },
      ),
      { return_url: 'https://example.com/payments/done', refresh_url: 'https://example.com/payments' },
    ),
    response: {
      200: Type.Object({ onboarding_url: Type.String(), connect_id: Type.String() }),
    },
    handler: async (request, reply) =>
      startOnboarding(
        app.db,
        app.payments,
        principalOf(request),
        { returnUrl: request.body.return_url ?? home, refreshUrl: request.body.refresh_url ?? home },
        app.clock.now(),
        commitWith(request, reply, 200),
      ),
  });

  routes.route('GET', '/v1/billing/connect/status', {
    onRequest: requireBusiness({ scope: 'read', allowPastDue: true }),
    operationId: 'getPaymentAccountStatus',
    summary: "The business's payment account, as the processor describes it now",
    response: { 200: ConnectStatus },
    handler: async (request) =>
      connectStatus(app.db, app.payments, request.log, principalOf(request).businessId, app.clock.now()),
  });
};
