import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { matchesAny } from '../public/http-cache.ts';
import { widgetBundle } from './bundle.ts';

/** Pages embedding the widget pick up a new version within five minutes. */
export const WIDGET_MAX_AGE_SECONDS = 300;

const accepts = (header: string | undefined, coding: string) =>
  (header ?? '').split(',').some((part) => {
    const [name, q] = part.trim().split(/\s*;\s*q=/);
    return name === coding && (q === undefined || Number(q) > 0);
  });

/** The booking widget's script, for any site to load with a `<script>` tag. */
export const widgetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/widget/v1/slotwise.js',
    {
      schema: {
        tags: ['Widget'],
        summary: 'The `<slotwise-booking>` element: a script for any web page (gzipped when accepted)',
        security: [],
        response: {
          200: Type.Unsafe<Buffer>({ type: 'string', description: 'JavaScript' }),
          304: Type.Null(),
        },
      },
    },
    async (request, reply) => {
      const bundle = await widgetBundle();
      reply
        .header('Cache-Control', `public, max-age=${WIDGET_MAX_AGE_SECONDS}`)
        .header('ETag', bundle.etag)
        .header('Vary', 'Accept-Encoding')
        // Loaded by pages of any origin, including ones that isolate themselves (COEP).
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('Access-Control-Allow-Origin', '*')
        .type('text/javascript; charset=utf-8');
      if (matchesAny(request.headers['if-none-match'], bundle.etag)) return reply.code(304).send(null);
      if (!accepts(request.headers['accept-encoding'], 'gzip')) return reply.send(bundle.js);
      return reply.header('Content-Encoding', 'gzip').send(bundle.gzipped);
    },
  );
};
