import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { recordAudit } from '../audit/audit.ts';
import { minutesOf } from '../availability/engine/index.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { withTx } from '../platform/db.ts';
import { type FieldError, validationError } from '../platform/errors.ts';
import { ErrorResponses, Nullable, TimeString } from '../platform/schemas.ts';
import { HoursRowView, type HoursRowWire, loadHours, toWeek } from './hours.queries.ts';

const HoursRowInput = Type.Object(
  {
    day_of_week: Type.Integer({ minimum: 0, maximum: 6, description: '0 = Sunday ... 6 = Saturday' }),
    is_open: Type.Boolean(),
    open_time: Type.Optional(Nullable(TimeString)),
    close_time: Type.Optional(
      Nullable({
        ...TimeString,
        description: 'HH:MM; at or before open_time means the window runs past midnight',
      }),
    ),
    last_booking_time: Type.Optional(
      Nullable({
        ...TimeString,
        description: 'latest start; defaults to close_time minus the booking length',
      }),
    ),
  },
  { additionalProperties: false },
);
type HoursRowInput = Type.Static<typeof HoursRowInput>;

const WeekBody = Type.Object(
  { hours: Type.Array(HoursRowInput, { minItems: 7, maxItems: 7 }) },
  {
    additionalProperties: false,
    description: 'Seven rows, one per day; a bare array of the seven rows is accepted as well',
  },
);

const Week = Type.Array(HoursRowView, { minItems: 7, maxItems: 7 });

/** Whether `time` lies in the window from `open` to `close`, both ends included; close <= open runs past midnight. */
function withinWindow(time: string, open: string, close: string): boolean {
  // The schema has checked the format, so every time parses; the engine compares whole minutes too.
  const [t, o, c] = [minutesOf(time)!, minutesOf(open)!, minutesOf(close)!];
  return c > o ? t >= o && t <= c : t >= o || t <= c;
}

/** The rules of a week the schema cannot state; returns the rows as they are stored. */
function checkWeek(rows: HoursRowInput[]): HoursRowWire[] {
  const fields: FieldError[] = [];
  const seen = new Set<number>();
  const week = rows.map((row, index) => {
    const at = `hours[${index}]`;
    if (seen.has(row.day_of_week)) {
      fields.push({ field: `${at}.day_of_week`, message: `day ${row.day_of_week} appears more than once` });
    }
    seen.add(row.day_of_week);
    if (!row.is_open) {
      return {
        day_of_week: row.day_of_week,
        is_open: false,
        open_time: null,
        close_time: null,
        last_booking_time: null,
      };
    }
    const { open_time: open, close_time: close, last_booking_time: last = null } = row;
    if (!open) fields.push({ field: `${at}.open_time`, message: 'is required on an open day' });
    if (!close) fields.push({ field: `${at}.close_time`, message: 'is required on an open day' });
    if (open && close && last && !withinWindow(last, open, close)) {
      fields.push({
        field: `${at}.last_booking_time`,
        message: `must lie between open_time ${open} and close_time ${close}`,
      });
    }
    return {
      day_of_week: row.day_of_week,
      is_open: true,
      open_time: open ?? null,
      close_time: close ?? null,
      last_booking_time: last,
    };
  });
  if (fields.length) throw validationError(fields);
  return week;
}

export const hoursRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/hours',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        tags: ['Settings'],
        summary: 'Weekly operating hours: seven rows, Sunday (0) first; a day never set is closed',
        response: { 200: Week, ...ErrorResponses },
      },
    },
    async (request) => toWeek(await loadHours(app.db, principalOf(request).businessId)),
  );

  app.put(
    '/v1/manage/hours',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      // A bare array is the documented form; wrapping it lets one schema name fields as `hours[2].open_time`.
      preValidation: async (request) => {
        if (Array.isArray(request.body)) request.body = { hours: request.body };
      },
      schema: {
        tags: ['Settings'],
        summary: 'Replace the hours of all seven days',
        body: WeekBody,
        response: { 200: Week, ...ErrorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const week = checkWeek(request.body.hours);
      return withTx(app.db, async (tx) => {
        const before = toWeek(await loadHours(tx, principal.businessId));
        await tx
          .insertInto('operating_hours')
          .values(week.map((row) => ({ business_id: principal.businessId, ...row })))
          .onConflict((oc) =>
            oc.columns(['business_id', 'day_of_week']).doUpdateSet((eb) => ({
              is_open: eb.ref('excluded.is_open'),
              open_time: eb.ref('excluded.open_time'),
              close_time: eb.ref('excluded.close_time'),
              last_booking_time: eb.ref('excluded.last_booking_time'),
            })),
          )
          .execute();
        const after = toWeek(await loadHours(tx, principal.businessId));
        await recordAudit(tx, principal, {
          action: 'settings.hours_updated',
          entityType: 'business',
          entityId: principal.businessId,
          before: { hours: before },
          after: { hours: after },
        });
        return after;
      });
    },
  );
};
