import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, type TSchema, Type } from 'typebox';
import { optionalCredential, principalOf, requireBusiness } from '../platform/access.ts';
import { LruMap } from '../platform/change-feed.ts';
import { invalidField } from '../platform/errors.ts';
import { DateString, ErrorResponses, IdParams, Nullable, Uuid } from '../platform/schemas.ts';
import { type DayContext, loadDayContext } from './availability.queries.ts';
import {
  assertPartySize,
  loadDay,
  type NoSlotsReason,
  toDayRules,
  whyNoStarts,
} from './availability.service.ts';
import { addDays, daySlots, todayIn } from './engine/index.ts';

const PartySize = Type.Integer({ minimum: 1, maximum: 50 });

const SlotSchema = Type.Object({
  time: Type.String(),
  available: Type.Boolean(),
  remaining_resources: Type.Optional(Type.Integer()),
  resource_id: Type.Optional(Uuid),
  resource_name: Type.Optional(Type.String()),
});

const AvailabilityResponse = Type.Object({
  business_id: Uuid,
  booking_date: DateString,
  capacity: Type.Integer(),
  slots: Type.Array(SlotSchema),
  reason: Nullable(
    Type.Union(
      [
        Type.Literal('past'),
        Type.Literal('closed'),
        Type.Literal('blackout'),
        Type.Literal('outside_booking_window'),
        Type.Literal('no_free_resource'),
      ],
      {
        description:
          'why `slots` is empty: `past` (before today in the business zone), `closed` (no opening hours that day, or too short for one booking), `blackout`, `outside_booking_window` (beyond the window, or every start inside minimum notice), `no_free_resource` (view=resources: no fitting resource free at any start); null when there are slots',
      },
    ),
  ),
});

/** The query of both availability routes; `capacity` is optional on the public one only. */
const dayQueryString = <C extends TSchema>(capacity: C) =>
  Type.Object(
    {
      booking_date: Type.Optional(DateString),
      date: Type.Optional(DateString),
      capacity,
      service_id: Type.Optional(Uuid),
      resource_id: Type.Optional(Uuid),
      view: Type.Optional(Type.Union([Type.Literal('slots'), Type.Literal('resources')])),
    },
    { additionalProperties: false },
  );
type DayQueryString = Omit<Static<ReturnType<typeof dayQueryString>>, 'capacity'>;

interface SlotQuery {
  businessId: string;
  date: string;
  partySize: number;
  serviceId?: string;
  resourceId?: string;
  perResource: boolean;
}

type SlotView = Static<typeof SlotSchema>;

interface DayView {
  slots: SlotView[];
  reason: NoSlotsReason | null;
}

/** The longest a computed day is served, even when nothing changes, so time moving on is noticed. */
const CACHE_MS = 30_000;
const HOUR_MS = 3_600_000;

export const availabilityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  /**
   * Computed days by query. An entry is served only while its business's change version is
   * unchanged and until the first slot it lists falls inside minimum notice, so a cached answer
   * never shows a slot that a fresh computation would not.
   */
  const computed = new LruMap<string, { version: string; until: number; day: DayView }>(20_000);

  /**
   * A business's rules (settings, hours, blackouts, resources, a service) by business and
   * service. Bookings do not change them, so they outlive the computed days a booking drops.
   */
  const rules = new LruMap<string, { version: string; until: number; rules: DayContext | null }>(5_000);

  const rulesFor = async (query: SlotQuery, now: number): Promise<DayContext | null> => {
    const version = app.changes.rulesVersion(query.businessId);
    const key = `${query.businessId}|${query.serviceId ?? ''}`;
    const hit = rules.get(key);
    if (hit && hit.version === version && now < hit.until) return hit.rules;
    // Blackouts from two days back cover every date that can still have slots, in any zone.
    const loaded = await loadDayContext(
      app.db,
      query.businessId,
      addDays(todayIn('UTC', now), -2),
      query.serviceId,
    );
    if (version) rules.set(key, { version, until: now + CACHE_MS, rules: loaded });
    return loaded;
  };

  const slotsFor = async (query: SlotQuery): Promise<DayView> => {
    const now = app.clock.now();
    const version = app.changes.businessVersion(query.businessId);
    const key = [
      query.businessId,
      query.date,
      query.partySize,
      query.serviceId,
      query.resourceId,
      query.perResource,
    ].join('|');
    const hit = computed.get(key);
    if (hit && hit.version === version && now < hit.until) return hit.day;
    const ctx = await loadDay(app.db, query.businessId, query, now, await rulesFor(query, now));
    assertPartySize(ctx.business, query.partySize);
    const rules = toDayRules(ctx, query, now);
    const found = daySlots(rules);
    const { slots } = found;
    let views: SlotView[];
    if (query.perResource) {
      const names = new Map(ctx.resources.map((r) => [r.id, r.name]));
      views = slots.flatMap((slot) =>
        slot.freeResourceIds.map((id) => ({
          time: slot.time,
          available: true,
          resource_id: id,
          resource_name: names.get(id)!,
        })),
      );
    } else {
      views = slots.map((slot) => ({
        time: slot.time,
        available: slot.freeResourceIds.length > 0,
        remaining_resources: slot.freeResourceIds.length,
      }));
    }
    const day: DayView = {
      slots: views,
      reason: slots.length === 0 ? whyNoStarts(rules, found) : views.length === 0 ? 'no_free_resource' : null,
    };
    if (version) {
      const firstLeaves =
        slots.length > 0 ? slots[0]!.start - ctx.business.min_notice_hours * HOUR_MS : Infinity;
      computed.set(key, { version, until: Math.min(now + CACHE_MS, firstLeaves), day });
    }
    return day;
  };

  /** Both routes answer the same question; only where the business and the party size come from differs. */
  const answer = async (businessId: string, q: DayQueryString, partySize: number) => {
    const date = q.booking_date ?? q.date;
    if (!date) throw invalidField('booking_date', 'is required');
    const day = await slotsFor({
      businessId,
      date,
      partySize,
      serviceId: q.service_id,
      resourceId: q.resource_id,
      perResource: q.view === 'resources',
    });
    return { business_id: businessId, booking_date: date, capacity: partySize, ...day };
  };

  app.get(
    '/v1/availability/:business_id',
    {
      onRequest: optionalCredential,
      schema: {
        tags: ['Availability'],
        summary: 'Bookable slots of one day (public)',
        description:
          'Slots of the grid inside operating hours, minimum notice and booking window, each with the number of free resources that fit the party. `view=resources` lists one entry per free (time, resource) pair instead.',
        security: [],
        params: IdParams('business_id'),
        querystring: dayQueryString(Type.Optional(PartySize)),
        response: { 200: AvailabilityResponse, ...ErrorResponses },
      },
    },
    async (request) => answer(request.params.business_id, request.query, request.query.capacity ?? 1),
  );

  app.get(
    '/v1/manage/availability',
    {
      onRequest: requireBusiness({ scope: 'read', staff: true }),
      schema: {
        tags: ['Availability'],
        summary: "Slots of one day for the staff's own business",
        querystring: dayQueryString(PartySize),
        response: { 200: AvailabilityResponse, ...ErrorResponses },
      },
    },
    async (request) => answer(principalOf(request).businessId, request.query, request.query.capacity),
  );
};
