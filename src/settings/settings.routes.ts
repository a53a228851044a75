import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { recordAudit } from '../audit/audit.ts';
import { principalOf, requireBusiness } from '../platform/access.ts';
import { withTx } from '../platform/db.ts';
import { type FieldError, notFound, validationError } from '../platform/errors.ts';
import { ErrorResponses } from '../platform/schemas.ts';
import { type BusinessSettings, loadSettings, SETTINGS_COLUMNS } from './settings.queries.ts';
import { isValidTimeZone } from './timezone.ts';

const int = (minimum: number, maximum: number, description: string) =>
  Type.Integer({ minimum, maximum, description });

const SettingsFields = {
  timezone: Type.String({
    minLength: 1,
    maxLength: 64,
    description:
      'IANA time zone name (e.g. Europe/Berlin); every date and time of the business is wall-clock time there',
  }),
  default_slot_interval_minutes: int(15, 120, 'gap between slot starts'),
  default_slot_duration_minutes: int(15, 360, 'booking length'),
  booking_window_days: int(1, 365, 'how far ahead bookings are accepted'),
  min_notice_hours: int(0, 168, 'minimum notice before a booking starts'),
  min_capacity: int(1, 20, 'smallest party size'),
  max_capacity: int(1, 50, 'largest party size'),
  auto_confirm_bookings: Type.Boolean({
    description: 'public bookings without deposit are confirmed at once',
  }),
  default_deposit_amount_cents: int(5, 500, 'deposit per person, EUR cents'),
  booking_mode: Type.Union([Type.Literal('scheduled'), Type.Literal('dynamic')]),
  buffer_minutes: int(0, 240, 'kept free after each booking on the same resource'),
  deposit_type: Type.Union([
    Type.Literal('none'),
    Type.Literal('charge'),
    Type.Literal('authorization_hold'),
  ]),
};

const Settings = Type.Object(SettingsFields);
const SettingsPatch = Type.Partial(Settings, { additionalProperties: false });

/** The rules a schema cannot state: a real zone, and a capacity range that is not empty once merged. */
function checkSettings(patch: Partial<BusinessSettings>, merged: BusinessSettings, zoneKnown: boolean): void {
  const fields: FieldError[] = [];
  if (!zoneKnown) {
    fields.push({ field: 'timezone', message: 'is not an IANA time zone name such as Europe/Berlin' });
  }
  if (merged.min_capacity > merged.max_capacity) {
    fields.push(
      patch.min_capacity !== undefined
        ? { field: 'min_capacity', message: `must not exceed max_capacity (${merged.max_capacity})` }
        : { field: 'max_capacity', message: `must not be below min_capacity (${merged.min_capacity})` },
    );
  }
  if (fields.length) throw validationError(fields);
}

export const settingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/manage/settings',
    {
      onRequest: requireBusiness({ scope: 'read' }),
      schema: {
        tags: ['Settings'],
        summary: "The business's booking settings",
        response: { 200: Settings, ...ErrorResponses },
      },
    },
    async (request) => {
      const settings = await loadSettings(app.db, principalOf(request).businessId);
      if (!settings) throw notFound('business');
      return settings;
    },
  );

  app.patch(
    '/v1/manage/settings',
    {
      onRequest: requireBusiness({ scope: 'write' }),
      schema: {
        tags: ['Settings'],
        summary: 'Change any subset of the settings; answers with all of them',
        body: SettingsPatch,
        response: { 200: Settings, ...ErrorResponses },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const patch = request.body;
      // Before the transaction: on PostgreSQL the database's refusal of a zone would abort it.
      const zoneKnown = patch.timezone === undefined || (await isValidTimeZone(app.db, patch.timezone));
      return withTx(app.db, async (tx) => {
        const before = await loadSettings(tx, principal.businessId, { forUpdate: true });
        if (!before) throw notFound('business');
        const merged = { ...before, ...patch };
        checkSettings(patch, merged, zoneKnown);
        const changed = SETTINGS_COLUMNS.filter((column) => merged[column] !== before[column]);
        if (changed.length === 0) return before;
        const after = (await tx
          .updateTable('businesses')
          .set(Object.fromEntries(changed.map((column) => [column, merged[column]])))
          .where('id', '=', principal.businessId)
          .returning(SETTINGS_COLUMNS)
          .executeTakeFirstOrThrow()) as BusinessSettings;
        await recordAudit(tx, principal, {
          action: 'settings.updated',
          entityType: 'business',
          entityId: principal.businessId,
          before,
          after,
          meta: { changed },
        });
        return after;
      });
    },
  );
};
