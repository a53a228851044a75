import { type AuditActor, recordAudit, removeAudited } from '../audit/audit.service.ts';
import { ALL_EVENTS, TEST_EVENT, WEBHOOK_EVENTS } from '../engine/webhook-events.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { conflict, invalidField, notFound } from '../platform/errors.ts';
import type { Commit } from '../platform/idempotency.ts';
import type { Page, PageRequest } from '../platform/pagination.ts';
import { deriveKey, encrypt } from '../platform/secrets.ts';
import type { WebhookDeliveryStatus, WebhookEndpointStatus } from '../schema.ts';
import { generateSecret } from './signing.rules.ts';
import { UnsafeTarget, type WebhookTargets } from './target.adapter.ts';
import {
  type DeliveryRow,
  deleteEndpointRow,
  type EndpointRow,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  insertEventFor,
  listDeliveriesOf,
  listEndpointsOf,
  lockDelivery,
  lockEndpoint,
  requeueDelivery,
  updateEndpoint,
} from './webhooks.queries.ts';

/** How long the secret replaced by a rotation still signs deliveries. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** The key webhook secrets are sealed with at rest. */
export const webhookSealKey = (jwtSecret: string) => deriveKey(jwtSecret, 'webhook secrets');

export interface EndpointView {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  is_active: boolean;
  status: WebhookEndpointStatus;
  created_at: string;
}

const toEndpointView = (row: EndpointRow): EndpointView => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: row.events,
  is_active: row.is_active,
  status: row.status,
  created_at: row.created_at.toISOString(),
});

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | null;
}

const KNOWN_EVENTS = new Set<string>([ALL_EVENTS, ...WEBHOOK_EVENTS]);

/**
 * The checks that must not hold a transaction: the URL's host is resolved (DNS) to refuse one
 * that leads to a private address. Answers the input with the URL as it will be called.
 */
export async function prepareEndpoint(targets: WebhookTargets, input: EndpointInput): Promise<EndpointInput> {
  input.events.forEach((name, i) => {
    if (!KNOWN_EVENTS.has(name)) {
      throw invalidField(
        `events[${i}]`,
        `"${name}" is not an event; use "*" or one of ${WEBHOOK_EVENTS.join(', ')}`,
      );
    }
  });
  try {
    const url = await targets.checkRegistration(input.url);
    return { ...input, url: url.href };
  } catch (error) {
    if (error instanceof UnsafeTarget) throw invalidField('url', error.message);
    throw error;
  }
}

export async function createEndpoint(
  tx: Tx,
  actor: AuditActor,
  sealKey: Buffer,
  input: EndpointInput,
): Promise<EndpointView & { secret: string }> {
  const secret = generateSecret();
  const row = await insertEndpoint(tx, {
    business_id: actor.businessId,
    url: input.url,
    description: input.description ?? null,
    events: input.events,
    secret: encrypt(sealKey, secret),
  });
  const view = toEndpointView(row);
  await recordAudit(tx, actor, {
    action: 'webhook.created',
    entityType: 'webhook_endpoint',
    entityId: view.id,
    after: view,
  });
  return { ...view, secret };
}

export async function listEndpoints(executor: Executor, page: PageRequest): Promise<Page<EndpointView>> {
  const rows = await listEndpointsOf(executor, page);
  return { ...rows, items: rows.items.map(toEndpointView) };
}

/** Removes the endpoint; its deliveries still due are never sent. */
export const deleteEndpoint = (tx: Tx, actor: AuditActor, endpointId: string) =>
  removeAudited(tx, actor, {
    entityType: 'webhook_endpoint',
    take: () => deleteEndpointRow(tx, actor.businessId, endpointId),
    view: toEndpointView,
    action: 'webhook.deleted',
  });

/**
 * A new secret signs from now on; the one it replaces keeps signing beside it for 24 hours, so
 * receivers verifying with either accept every delivery while they switch. Rotating again within
 * those hours drops the oldest.
 */
export async function rotateSecret(
  tx: Tx,
  actor: AuditActor,
  sealKey: Buffer,
  endpointId: string,
  now: number,
): Promise<EndpointView & { secret: string; previous_secret_expires_at: string }> {
  const current = await lockEndpoint(tx, actor.businessId, endpointId);
  if (!current) throw notFound('webhook endpoint');
  const secret = generateSecret();
  const previousExpiresAt = new Date(now + ROTATION_OVERLAP_MS);
  const row = await updateEndpoint(tx, actor.businessId, current.id, {
    secret: encrypt(sealKey, secret),
    previous_secret: current.secret,
    previous_secret_expires_at: previousExpiresAt,
  });
  const view = toEndpointView(row);
  await recordAudit(tx, actor, {
    action: 'webhook.secret_rotated',
    entityType: 'webhook_endpoint',
    entityId: view.id,
    meta: { previous_secret_expires_at: previousExpiresAt.toISOString() },
  });
  return { ...view, secret, previous_secret_expires_at: previousExpiresAt.toISOString() };
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_response_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
}

const toDeliveryView = (row: DeliveryRow): DeliveryView => ({
  id: row.id,
  event_id: row.event_id,
  event_type: row.event_type,
  status: row.status,
  attempts: row.attempts,
  last_response_code: row.last_response_code,
  last_error: row.last_error,
  next_attempt_at:
    row.status === 'pending' || row.status === 'retrying'
      ? (row.next_attempt_at?.toISOString() ?? null)
      : null,
  delivered_at: row.delivered_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
});

async function assertEndpoint(executor: Executor, businessId: string, endpointId: string) {
  const endpoint = await findEndpoint(executor, businessId, endpointId);
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}

/** The endpoint's delivery log, newest first; the page's owner is the endpoint. */
export async function listDeliveries(
  executor: Executor,
  businessId: string,
  page: PageRequest,
  status?: WebhookDeliveryStatus,
): Promise<Page<DeliveryView>> {
  await assertEndpoint(executor, businessId, page.owner);
  const rows = await listDeliveriesOf(executor, businessId, page, status);
  return { ...rows, items: rows.items.map(toDeliveryView) };
}

async function deliveryView(executor: Executor, businessId: string, endpointId: string, deliveryId: string) {
  const row = await findDelivery(executor, businessId, endpointId, deliveryId);
  if (!row) throw notFound('webhook delivery');
  return toDeliveryView(row);
}

/**
 * Sends a delivery again, whatever became of it: due now, with a fresh retry schedule. One being
 * sent at this moment is refused (409), so it is never sent twice at once.
 */
export async function retryDelivery(
  tx: Tx,
  actor: AuditActor,
  endpointId: string,
  deliveryId: string,
  now: number,
): Promise<DeliveryView> {
  await assertEndpoint(tx, actor.businessId, endpointId);
  const delivery = await lockDelivery(tx, actor.businessId, endpointId, deliveryId);
  if (!delivery) throw notFound('webhook delivery');
  if (delivery.locked_until && delivery.locked_until.getTime() > now) {
    throw conflict('this delivery is being sent right now; look at the delivery log in a moment');
  }
  await requeueDelivery(tx, actor.businessId, delivery.id, new Date(now));
  return deliveryView(tx, actor.businessId, endpointId, delivery.id);
}

/** A `webhook.test` event for this endpoint alone, delivered like any other. */
export async function sendTestEvent(tx: Tx, actor: AuditActor, endpointId: string): Promise<DeliveryView> {
  const endpoint = await assertEndpoint(tx, actor.businessId, endpointId);
  const deliveryId = await insertEventFor(tx, endpoint.id, {
    businessId: actor.businessId,
    type: TEST_EVENT,
    // `data.id` as every event has one: a receiver's `event.data.id` is the endpoint tested.
    data: JSON.stringify({
      id: endpoint.id,
      endpoint_id: endpoint.id,
      message: 'A test event: this endpoint receives and verifies webhooks.',
    }),
  });
  return deliveryView(tx, actor.businessId, endpoint.id, deliveryId);
}

/** A new endpoint: its address resolved and checked (outside the transaction), then stored. */
export async function addEndpoint<R>(
  targets: WebhookTargets,
  actor: AuditActor,
  sealKey: Buffer,
  input: EndpointInput,
  commit: Commit<R>,
): Promise<R> {
  const checked = await prepareEndpoint(targets, input);
  return commit((tx) => createEndpoint(tx, actor, sealKey, checked));
}
