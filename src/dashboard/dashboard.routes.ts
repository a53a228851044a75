import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sendAsset } from '../platform/browser-assets.ts';
import { notFound } from '../platform/errors.ts';
import { errorResponses } from '../platform/schemas.ts';
import { dashboardAssets } from './dashboard.bundle.ts';
import { dashboardPage, SHELL_HEADERS } from './shell.page.ts';

/** Chunks are named by their content: they never change. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The entry keeps its name across versions: the browser asks again each time (a 304 when unchanged). */
const REVALIDATE = 'no-cache';
const OWN_FILE = { 'X-Content-Type-Options': 'nosniff' };

const FileBody = (description: string) => Type.Unsafe<Buffer>({ type: 'string', description });

const typeOf = (file: string) =>
  file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';

/** The staff dashboard: its page and its files, built from `dashboard/` when first asked for. */
export const dashboardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/staff/',
    {
      schema: {
        operationId: 'getStaffDashboard',
        tags: ['Dashboard'],
        summary:
          "The venue's staff dashboard: a page that signs in with a dashboard user's or developer's account",
        security: [],
        response: { 200: Type.String({ description: 'an HTML page' }) },
      },
    },
    async (_request, reply) => {
      const { initial } = await dashboardAssets();
      return reply.headers(SHELL_HEADERS).type('text/html; charset=utf-8').send(dashboardPage(initial));
    },
  );

  for (const file of ['app.js', 'app.css'] as const) {
    app.get(
      `/staff/${file}`,
      {
        schema: {
          operationId: file === 'app.js' ? 'getStaffDashboardScript' : 'getStaffDashboardStyles',
          tags: ['Dashboard'],
          summary: `The staff dashboard's ${file === 'app.js' ? 'script (an ES module)' : 'styles'}`,
          security: [],
          response: { 200: FileBody(file === 'app.js' ? 'JavaScript' : 'CSS'), 304: Type.Null() },
        },
      },
      async (request, reply) => {
        const asset = (await dashboardAssets()).files.get(file)!;
        return sendAsset(request, reply, asset, typeOf(file), { ...OWN_FILE, 'Cache-Control': REVALIDATE });
      },
    );
  }

  app.get(
    '/staff/chunks/:file',
    {
      schema: {
        operationId: 'getStaffDashboardChunk',
        tags: ['Dashboard'],
        summary:
          "A part of the staff dashboard's script loaded when needed (a screen, a language), cached for good",
        security: [],
        params: Type.Object(
          { file: Type.String({ pattern: '^[\\w-]{1,100}\\.(js|css)$', maxLength: 104 }) },
          { additionalProperties: false },
        ),
        response: { 200: FileBody('JavaScript or CSS'), 304: Type.Null(), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const file = `chunks/${request.params.file}`;
      const asset = (await dashboardAssets()).files.get(file);
      if (!asset) throw notFound('file');
      return sendAsset(request, reply, asset, typeOf(file), { ...OWN_FILE, 'Cache-Control': IMMUTABLE });
    },
  );
};
