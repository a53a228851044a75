import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { matchesAny } from '../platform/browser-assets.ts';
import { areaRoutes } from '../platform/change-route.ts';
import { pageOf } from '../platform/pagination.ts';
import { example, IdParams, Nullable, Uuid } from '../platform/schemas.ts';
import { createFeed, findFeeds, renderFeed, revokeFeed } from './feeds.service.ts';
import { CreatedFeedView, FeedView, PrivateNotes } from './feeds.view.ts';

const FeedParams = IdParams('feed_id');

/** Secret iCalendar feeds of the bookings, for calendar apps to subscribe to. */
export const feedRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const routes = areaRoutes(app, { tags: ['Calendars'] });

  const host = new URL(app.config.publicBaseUrl).hostname;

  routes.change('POST', '/v1/manage/calendar-feeds', {
    config: { sensitive: true },
    operationId: 'createCalendarFeed',
    summary:
      "A secret iCalendar feed of the business's bookings, or of one resource's; its URL is shown once",
    body: example(
      Type.Object(
        { resource_id: Type.Optional(Nullable(Uuid)), private_notes: Type.Optional(PrivateNotes) },
        { additionalProperties: false },
      ),
      {},
    ),
    response: { 201: CreatedFeedView },
    change: (tx, principal, { body }) => createFeed(tx, principal, app.config.publicBaseUrl, body ?? {}),
  });

  routes.list('/v1/manage/calendar-feeds', {
    operationId: 'listCalendarFeeds',
    summary: 'List calendar feeds, oldest first (never their URLs)',
    item: FeedView,
    list: (request) => findFeeds(app.db, pageOf(request)),
  });

  routes.remove('/v1/manage/calendar-feeds/:feed_id', {
    operationId: 'deleteCalendarFeed',
    summary: 'Revoke a calendar feed: its URL answers 404 from now on',
    params: FeedParams,
    change: (tx, principal, { params }) => revokeFeed(tx, principal, params.feed_id),
  });

  app.get(
    '/calendar/:file',
    {
      schema: {
        operationId: 'getCalendarFeed',
        tags: ['Calendars'],
        summary: 'The iCalendar feed a secret URL names (its token is the only credential)',
        security: [],
        params: Type.Object({ file: Type.String({ maxLength: 100 }) }, { additionalProperties: false }),
        response: {
          200: Type.String({ description: 'text/calendar' }),
          304: Type.Null({ description: 'Not modified: the ETag sent in If-None-Match is current' }),
          404: Type.String({ description: 'no feed has this URL (never had, or revoked)' }),
        },
      },
    },
    async (request, reply) => {
      const feed = await renderFeed(app.db, request.params.file, app.clock.now(), host);
      if (!feed) return reply.code(404).type('text/plain; charset=utf-8').send('calendar feed not found\n');
      // Private: the feed is one venue's guest list, never for a shared cache; revalidated each time.
      reply.header('Cache-Control', 'private, no-cache').header('ETag', feed.etag);
      if (matchesAny(request.headers['if-none-match'], feed.etag)) return reply.code(304).send(null);
      return reply.type('text/calendar; charset=utf-8').send(feed.body);
    },
  );
};
