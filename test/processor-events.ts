import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { signEvent } from '../src/payments/inbound.events.ts';

/**
 * Posts an event to `POST /webhooks/payments` as the processor would: Stripe's event shape,
 * signed with the service's secret at the app's clock. `created` (unix seconds) defaults to now.
 */
export function sendProcessorEvent(
  app: FastifyInstance,
  type: string,
  object: Record<string, unknown> & { id: string },
  options: { id?: string; created?: number; account?: string } = {},
) {
  const body = JSON.stringify({
    id: options.id ?? `evt_${randomBytes(12).toString('hex')}`,
    object: 'event',
    type,
    created: options.created ?? Math.floor(app.clock.now() / 1000),
    livemode: false,
    data: { object },
    ...(options.account && { account: options.account }),
  });
  return app.inject({
    method: 'POST',
    url: '/webhooks/payments',
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signEvent(body, app.payments.webhookSecret, app.clock.now()),
    },
    payload: body,
  });
}
