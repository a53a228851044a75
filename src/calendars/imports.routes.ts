import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../platform/access.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { commitReply, commitWith } from '../platform/idempotency.ts';
import { pageOf } from '../platform/pagination.ts';
import { example, IdParams, Uuid } from '../platform/schemas.ts';
import { SYNC_JOB } from './imports.jobs.ts';
import { addImport, findImports, removeImport, requestSync } from './imports.service.ts';
import { ImportView } from './imports.view.ts';

const ImportParams = IdParams('import_id');

/** External calendars whose busy events block a resource, read every 15 minutes. */
export const importRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Calendars'] });

  routes.route('POST', '/v1/manage/calendar-imports', {
    operationId: 'createCalendarImport',
    summary: "Import an external calendar's busy times as blocks of a resource",
    description:
      '`url` follows the webhook URL rules: https, port 443 or 1024-65535, no user info, a host that is or resolves only to public addresses. The calendar is read at the next run of the sync (every 15 minutes), or at once with `POST .../sync`.',
    body: example(
      Type.Object(
        { url: Type.String({ minLength: 1, maxLength: 2048 }), resource_id: Uuid },
        { additionalProperties: false },
      ),
      {
        url: 'https://calendar.example.com/private/basic.ics',
        resource_id: '4b0a7c8e-2f5d-4c53-9a43-0d3f2b7b1e11',
      },
    ),
    response: { 201: ImportView },
    handler: async (request, reply) =>
      addImport(
        app.webhooks.targets,
        principalOf(request),
        request.body,
        app.clock.now(),
        commitWith(request, reply, 201),
      ),
  });

  routes.list('/v1/manage/calendar-imports', {
    operationId: 'listCalendarImports',
    summary: 'List calendar imports, oldest first, with their last sync and its failure',
    item: ImportView,
    list: (request) => findImports(app.db, principalOf(request), pageOf(request)),
  });

  routes.remove('/v1/manage/calendar-imports/:import_id', {
    operationId: 'deleteCalendarImport',
    summary: 'Remove a calendar import and the blocks it made',
    params: ImportParams,
    change: (tx, principal, { params }) => removeImport(tx, principal, params.import_id),
  });

  routes.route('POST', '/v1/manage/calendar-imports/:import_id/sync', {
    operationId: 'syncCalendarImport',
    summary: 'Read the external calendar now, as a job: its outcome shows in the list',
    description:
      'Answers 202 with the import as it stands (`last_synced_at` and `last_error` of the read before) once the import is due; the job `calendar-imports` reads it within seconds, and `GET /v1/manage/calendar-imports` then shows its `last_synced_at` or its failure in `last_error`.',
    params: ImportParams,
    response: { 202: ImportView },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const sent = await commitReply(request, reply, 202, (tx) =>
        requestSync(tx, principal, request.params.import_id, app.clock.now()),
      );
      // Committed, so the job finds the import due; it runs beside the answer, not within it.
      void app.jobs.kick(SYNC_JOB);
      return sent;
    },
  });
};
