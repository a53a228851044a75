import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, example } from '../platform/schemas.ts';
import { SIGNATURE_HEADERS } from './inbound.events.ts';

export const paymentsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The signature covers the body's exact bytes: this route reads it as text, not parsed JSON.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );

  app.post(
    '/webhooks/payments',
    {
      schema: {
        operationId: 'receivePaymentEvent',
        tags: ['Payments'],
        summary: "The payment processor's events (not for clients)",
        description:
          'Signed by the processor in `payment-processor-signature` (or `Stripe-Signature`): `t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, 300 s tolerance. Each event id is applied once; unknown types are acknowledged and ignored. A bad or missing signature is 400 and changes nothing.',
        security: [],
        body: example(
          Type.String(),
          '{"id":"evt_1","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1"}}}',
        ),
        response: { 200: Type.Object({ received: Type.Boolean() }), ...errorResponses(400) },
      },
    },
    async (request) => {
      const signature = SIGNATURE_HEADERS.map((name) => request.headers[name]).find(
        (value): value is string => typeof value === 'string',
      );
      await app.inboundEvents.receive(request.body, signature);
      return { received: true };
    },
  );
};
