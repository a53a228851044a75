import { type Insertable, sql, type Updateable } from 'kysely';
import { businessRows } from '../platform/business-rows.ts';
import type { Db, Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';
import type { DB, WebhookDeliveryStatus, WebhookEndpointStatus } from '../schema.ts';

/** What an endpoint's listing shows: never its secrets. */
const ENDPOINT_COLUMNS = ['id', 'url', 'description', 'events', 'is_active', 'status', 'created_at'] as const;

export function insertEndpoint(executor: Executor, values: Insertable<DB['webhook_endpoints']>) {
  return executor
    .insertInto('webhook_endpoints')
    .values(values)
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirstOrThrow();
}

export type EndpointRow = Awaited<ReturnType<typeof insertEndpoint>>;

/** A page of the business's endpoints, oldest first. */
export const listEndpointsOf = (executor: Executor, page: PageRequest) =>
  keysetPage(
    executor.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('business_id', '=', page.owner),
    { name: 'webhook_endpoints', keys: sortedBy('created_at', 'timestamptz') },
    page,
  );

export const findEndpoint = (executor: Executor, businessId: string, endpointId: string) =>
  executor
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('id', '=', endpointId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();

/** The endpoint with its sealed secrets, locked until the transaction ends. */
export const lockEndpoint = (executor: Executor, businessId: string, endpointId: string) =>
  executor
    .selectFrom('webhook_endpoints')
    .select([...ENDPOINT_COLUMNS, 'secret'])
    .where('id', '=', endpointId)
    .where('business_id', '=', businessId)
    .forUpdate()
    .executeTakeFirst();

const endpointRows = businessRows('webhook_endpoints', ENDPOINT_COLUMNS);

export const updateEndpoint = (
  executor: Executor,
  businessId: string,
  endpointId: string,
  changes: Updateable<DB['webhook_endpoints']>,
) => endpointRows.update(executor, businessId, endpointId, { ...changes, updated_at: sql`now()` });

/** Removes the business's endpoint and, with it, its deliveries; undefined when there is none. */
export const deleteEndpointRow = endpointRows.delete;

export interface NewEvent {
  businessId: string;
  type: string;
  /** The JSON text of the event's object. */
  data: string;
  subjectKey: string;
}

/**
 * The event and a delivery to each active endpoint of the business subscribed to its type or to
 * `*`, due at once; without such an endpoint nothing is written. One SQL function does it
 * (`db/functions/slotwise_emit_event.sql`), which the booking statement calls too.
 */
export async function insertEvent(executor: Executor, event: NewEvent): Promise<void> {
  await sql`SELECT slotwise_emit_event(${event.businessId}::uuid, ${event.type}, ${event.data}::json, ${event.subjectKey})`.execute(
    executor,
  );
}

/** An event for one endpoint only (the test ping), ordered by nothing but itself; answers the delivery's id. */
export async function insertEventFor(
  executor: Executor,
  endpointId: string,
  event: Omit<NewEvent, 'subjectKey'>,
): Promise<string> {
  const { rows } = await sql<{ id: string }>`
    WITH event AS (
      INSERT INTO webhook_events (business_id, type, data)
      VALUES (${event.businessId}::uuid, ${event.type}, ${event.data}::json)
      RETURNING id, created_at
    )
    INSERT INTO webhook_deliveries (business_id, endpoint_id, event_id, subject_key, next_attempt_at)
    SELECT ${event.businessId}::uuid, ${endpointId}::uuid, event.id, event.id::text, event.created_at FROM event
    RETURNING id`.execute(executor);
  return rows[0]!.id;
}

const DELIVERY_COLUMNS = [
  'd.id',
  'd.event_id',
  'e.type as event_type',
  'd.status',
  'd.attempts',
  'd.last_response_code',
  'd.last_error',
  'd.next_attempt_at',
  'd.locked_until',
  'd.delivered_at',
  'd.created_at',
] as const;

const selectDeliveries = (executor: Executor) =>
  executor
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', (join) =>
      join.onRef('e.business_id', '=', 'd.business_id').onRef('e.id', '=', 'd.event_id'),
    )
    .select(DELIVERY_COLUMNS);

export type DeliveryRow = Awaited<ReturnType<ReturnType<typeof selectDeliveries>['executeTakeFirstOrThrow']>>;

/** A page of one endpoint's deliveries (the page's owner), newest first. */
export function listDeliveriesOf(
  executor: Executor,
  businessId: string,
  page: PageRequest,
  status?: WebhookDeliveryStatus,
) {
  let query = selectDeliveries(executor)
    .where('d.business_id', '=', businessId)
    .where('d.endpoint_id', '=', page.owner);
  if (status) query = query.where('d.status', '=', status);
  return keysetPage(
    query,
    { name: 'webhook_deliveries', keys: [{ ref: 'd.seq', type: 'bigint' }], direction: 'desc' },
    page,
  );
}

export const findDelivery = (
  executor: Executor,
  businessId: string,
  endpointId: string,
  deliveryId: string,
) =>
  selectDeliveries(executor)
    .where('d.business_id', '=', businessId)
    .where('d.id', '=', deliveryId)
    .where('d.endpoint_id', '=', endpointId)
    .executeTakeFirst();

export const lockDelivery = (
  executor: Executor,
  businessId: string,
  endpointId: string,
  deliveryId: string,
) =>
  executor
    .selectFrom('webhook_deliveries')
    .select(['id', 'locked_until'])
    .where('business_id', '=', businessId)
    .where('id', '=', deliveryId)
    .where('endpoint_id', '=', endpointId)
    .forUpdate()
    .executeTakeFirst();

/** Due at `now` with a fresh schedule, whatever became of it before. */
export const requeueDelivery = (executor: Executor, businessId: string, deliveryId: string, now: Date) =>
  executor
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, locked_until: null })
    .where('business_id', '=', businessId)
    .where('id', '=', deliveryId)
    .execute();

export interface ClaimedDelivery {
  id: string;
  /** This attempt's number, from 1. */
  attempts: number;
  /** The lease taken; the outcome is written only while it is still this one's. */
  locked_until: Date;
  endpoint_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  event_id: string;
  type: string;
  business_id: string;
  data: unknown;
  event_created_at: Date;
}

/**
 * Takes up to `limit` deliveries due at `now` and leases them until `leaseUntil`, counting the
 * attempt. A pending delivery (never tried, or asked to be sent again) is due at once, whatever
 * the clocks of the database and of this process say; a retrying one at its `next_attempt_at`. Rows another dispatcher is claiming are skipped (`SKIP LOCKED`), rows leased by one
 * are not due, and a delivery waits while an earlier one of its endpoint and subject is pending
 * or retrying, so one subject's events arrive in order. A row whose lease changed under the
 * claim is re-checked by PostgreSQL against the new version and left alone.
 */
export async function claimDue(db: Db, now: Date, leaseUntil: Date, limit: number) {
  const { rows } = await sql<ClaimedDelivery>`
    WITH due AS (
      SELECT c.business_id, c.id FROM webhook_deliveries c
      WHERE (c.status = 'pending' OR (c.status = 'retrying' AND c.next_attempt_at <= ${now}))
        AND (c.locked_until IS NULL OR c.locked_until <= ${now})
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries earlier
          WHERE earlier.business_id = c.business_id AND earlier.endpoint_id = c.endpoint_id
            AND earlier.subject_key = c.subject_key
            AND earlier.seq < c.seq AND earlier.status IN ('pending', 'retrying'))
      ORDER BY c.next_attempt_at, c.seq
      LIMIT ${limit}
      FOR UPDATE OF c SKIP LOCKED
    )
    UPDATE webhook_deliveries d SET locked_until = ${leaseUntil}, attempts = d.attempts + 1
    FROM due, webhook_endpoints w, webhook_events e
    WHERE d.business_id = due.business_id AND d.id = due.id
      AND w.business_id = d.business_id AND w.id = d.endpoint_id
      AND e.business_id = d.business_id AND e.id = d.event_id
    RETURNING d.id, d.attempts, d.locked_until, w.id AS endpoint_id, w.url, w.secret, w.previous_secret,
      w.previous_secret_expires_at, e.id AS event_id, e.type, e.business_id, e.data,
      e.created_at AS event_created_at`.execute(db);
  return rows;
}

export interface DeliveryOutcome {
  status: WebhookDeliveryStatus;
  nextAttemptAt: Date | null;
  responseCode: number | null;
  error: string | null;
  deliveredAt: Date | null;
}

/**
 * Writes an attempt's outcome and releases the lease, if the lease is still the one taken: after
 * it lapsed another dispatcher may have claimed the delivery, and its outcome is the one to keep.
 */
export async function recordOutcome(
  executor: Executor,
  claimed: Pick<ClaimedDelivery, 'business_id' | 'id' | 'locked_until'>,
  outcome: DeliveryOutcome,
): Promise<boolean> {
  const result = await executor
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      next_attempt_at: outcome.nextAttemptAt,
      locked_until: null,
      last_response_code: outcome.responseCode,
      last_error: outcome.error,
      delivered_at: outcome.deliveredAt,
    })
    .where('business_id', '=', claimed.business_id)
    .where('id', '=', claimed.id)
    .where('locked_until', '=', claimed.locked_until)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export const setEndpointStatus = (
  executor: Executor,
  businessId: string,
  endpointId: string,
  status: WebhookEndpointStatus,
) =>
  executor
    .updateTable('webhook_endpoints')
    .set({ status, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', endpointId)
    .where('status', '!=', status)
    .execute();

/** Deliveries not yet finished, across every business: the outbox's depth (metrics). */
export async function countUnfinishedDeliveries(executor: Executor): Promise<number> {
  const { n } = await executor
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ['pending', 'retrying'])
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Finished deliveries, and events left without deliveries, older than `before`. */
export async function deleteOldDeliveries(executor: Executor, before: Date): Promise<number> {
  const deliveries = await executor
    .deleteFrom('webhook_deliveries')
    .where('status', 'in', ['delivered', 'failed'])
    .where('created_at', '<', before)
    .executeTakeFirst();
  const events = await executor
    .deleteFrom('webhook_events as e')
    .where('e.created_at', '<', before)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as d')
            .select('d.id')
            .whereRef('d.business_id', '=', 'e.business_id')
            .whereRef('d.event_id', '=', 'e.id'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(deliveries.numDeletedRows) + Number(events.numDeletedRows);
}
