import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { commitWith } from '../platform/idempotency.ts';
import { example } from '../platform/schemas.ts';
import { getSettings, reviseSettings } from './settings.service.ts';
import { MessageFields, ProfileFields, SettingsFields } from './settings.view.ts';

const Settings = Type.Object({ ...SettingsFields, ...ProfileFields, ...MessageFields });
const SettingsPatch = Type.Partial(Settings, { additionalProperties: false });

export const settingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Settings'] });

  routes.route('GET', '/v1/manage/settings', {
    operationId: 'getSettings',
    summary: "The business's booking settings",
    response: { 200: Settings },
    handler: async (request) => getSettings(app.db, principalOf(request).businessId),
  });

  routes.route('PATCH', '/v1/manage/settings', {
    operationId: 'updateSettings',
    summary: 'Change any subset of the settings; answers with all of them',
    body: example(SettingsPatch, {
      timezone: 'Europe/Berlin',
      default_slot_interval_minutes: 30,
      booking_window_days: 60,
      notification_language: 'de',
      reminder_hours_before: 24,
      venue_notification_email: 'bookings@venue.example',
      turn_times: [
        { min_party: 1, max_party: 4, duration_minutes: 90 },
        { min_party: 5, max_party: 50, duration_minutes: 120 },
      ],
    }),
    response: { 200: Settings },
    handler: async (request, reply) =>
      reviseSettings(
        app.db,
        principalOf(request),
        request.body,
        app.payments.live?.name ?? null,
        app.config.smsMaxPerBusinessPerDay,
        app.clock.now(),
        commitWith(request, reply, 200),
      ),
  });
};
