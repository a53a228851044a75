import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type BuiltAsset, sendAsset } from '../platform/browser-assets.ts';
import { AppError, notFound } from '../platform/errors.ts';
import { errorResponses, Uuid } from '../platform/schemas.ts';
import { hostedLanguage, hostedPage, hostedPageCsp, notFoundPage } from './hosted.page.ts';
import { widgetAssets } from './widget.bundle.ts';
import { hostedPageOf } from './widget.service.ts';

/** Pages embedding the widget pick up a new version within five minutes. */
export const WIDGET_MAX_AGE_SECONDS = 300;
/** Files named by their content never change. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A widget file for pages of any origin (also ones isolating themselves with COEP). */
const sendWidgetAsset = (
  request: FastifyRequest,
  reply: FastifyReply,
  asset: BuiltAsset,
  type: string,
  cache: string,
) =>
  sendAsset(request, reply, asset, type, {
    'Cache-Control': cache,
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Access-Control-Allow-Origin': '*',
  });

/** A browser navigating (a link, an iframe) asks for HTML; API clients and `fetch` do not. */
const wantsHtml = (accept: string | undefined) =>
  (accept ?? '').split(',').some((part) => part.trim().split(';')[0] === 'text/html');

const FileBody = (description: string) => Type.Unsafe<Buffer>({ type: 'string', description });

/** The booking widget's files, for any site to load, and the hosted booking page. */
export const widgetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/widget/v1/slotwise.js',
    {
      schema: {
        operationId: 'getWidgetScript',
        tags: ['Widget'],
        summary: 'The `<slotwise-booking>` element: a script for any web page (gzipped when accepted)',
        security: [],
        response: { 200: FileBody('JavaScript'), 304: Type.Null() },
      },
    },
    async (request, reply) =>
      sendWidgetAsset(
        request,
        reply,
        (await widgetAssets()).script,
        'text/javascript; charset=utf-8',
        `public, max-age=${WIDGET_MAX_AGE_SECONDS}`,
      ),
  );

  app.get(
    '/widget/v1/texts/:file',
    {
      schema: {
        operationId: 'getWidgetTexts',
        tags: ['Widget'],
        summary: "The widget's texts in one language, under a name that changes with them (cached for good)",
        security: [],
        params: Type.Object(
          { file: Type.String({ maxLength: 24, pattern: '^[a-z]{2}\\.[\\w-]{16}\\.json$' }) },
          { additionalProperties: false },
        ),
        response: { 200: FileBody('JSON: text by name'), 304: Type.Null(), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const texts = (await widgetAssets()).texts.get(request.params.file);
      if (!texts) throw notFound('texts');
      return sendWidgetAsset(request, reply, texts, 'application/json; charset=utf-8', IMMUTABLE);
    },
  );

  app.get(
    '/book/:slug',
    {
      schema: {
        operationId: 'getBookingPage',
        tags: ['Widget'],
        summary: "A business's booking page: the widget full page, to share as a link or embed in an iframe",
        description:
          "In the language of `lang` (en, de, fr, nl, es), else of the browser. With `manage`, the guest finds that booking with the email or phone given at booking and may cancel it. Only the API's own origin and the origins listed by the business's active publishable keys may frame it (`Content-Security-Policy: frame-ancestors`); framed by one of those, the widget also sends its `slotwise:booked` and `slotwise:error` events to that origin with `postMessage`. An unknown slug is an HTML page to a client that accepts `text/html`, the error body otherwise.",
        security: [],
        params: Type.Object(
          { slug: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        querystring: Type.Object(
          {
            lang: Type.Optional(Type.String({ maxLength: 35 })),
            manage: Type.Optional(
              Type.String({
                maxLength: 20,
                pattern: '^[A-Za-z0-9]{1,20}$',
                description: "a booking's confirmation code: the guest's page to view or cancel it",
              }),
            ),
            service: Type.Optional(
              Type.String({
                ...Uuid,
                description:
                  "a service of the business the page books (a class shows the places left at each time); one that is not the business's active service is refused by availability as it is for any caller",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.String({ description: 'an HTML page' }),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const lang = hostedLanguage(request.query.lang, request.headers['accept-language']);
      reply.header('Cache-Control', 'no-cache').header('Vary', 'Accept, Accept-Language');
      let page: string;
      let origins: string[];
      try {
        const { business, keys } = await hostedPageOf(app.db, request.params.slug);
        origins = keys.origins;
        page = hostedPage(business, keys.key, lang, request.query.manage, origins, request.query.service);
      } catch (error) {
        if (
          !(error instanceof AppError && error.code === 'not_found') ||
          !wantsHtml(request.headers.accept)
        ) {
          throw error;
        }
        // Outside the route's typed replies: the 404 it documents is the JSON one.
        return (reply as FastifyReply)
          .code(404)
          .header('Content-Security-Policy', hostedPageCsp([]))
          .type('text/html; charset=utf-8')
          .send(notFoundPage(lang));
      }
      return reply
        .header('Content-Security-Policy', hostedPageCsp(origins))
        .type('text/html; charset=utf-8')
        .send(page);
    },
  );
};
