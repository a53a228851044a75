import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CreatedBookingSchema } from '../bookings/bookings.view.ts';
import { withTx } from '../platform/db.ts';
import { commitWith } from '../platform/idempotency.ts';
import { errorResponses } from '../platform/schemas.ts';
import { OFFER_PAGE_HEADERS, type OfferPageView, offerPage } from './offer.page.ts';
import { acceptOffer, acceptOfferOnPage, offerPageView } from './offers.service.ts';

const TokenParams = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'the token of the offer’s link' }) },
  { additionalProperties: false },
);

const HtmlPage = Type.String({ description: 'an HTML page' });

/** The page's status, for clients that read more than the page: an unknown link, an expired offer. */
const shownStatus = (view: OfferPageView) =>
  view.kind === 'unknown' ? 404 : view.offer.state === 'expired' ? 410 : 200;

/** After the button: also the time taken meanwhile. */
const bookedStatus = (view: OfferPageView) => (view.kind === 'slot_taken' ? 409 : shownStatus(view));

export const offerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The page's button is a plain form post: its body (no fields) is not read.
  app.addContentTypeParser('application/x-www-form-urlencoded', (_request, _payload, done) =>
    done(null, undefined),
  );

  app.get(
    '/waitlist/offer/:token',
    {
      schema: {
        operationId: 'getWaitlistOfferPage',
        tags: ['Waitlist'],
        summary: 'The page behind a waitlist offer’s link: the time offered and a button that books it',
        description:
          'Never books: mail scanners open links. 404 for an unknown link, 410 past the offer’s time; an offer already booked shows its confirmation code.',
        security: [],
        params: TokenParams,
        response: { 200: HtmlPage, 404: HtmlPage, 410: HtmlPage },
      },
    },
    async (request, reply) => {
      const view = await offerPageView(app.db, request.params.token, app.clock.now());
      return reply
        .code(shownStatus(view))
        .headers(OFFER_PAGE_HEADERS)
        .type('text/html; charset=utf-8')
        .send(offerPage(view));
    },
  );

  app.post(
    '/waitlist/offer/:token',
    {
      schema: {
        operationId: 'bookWaitlistOfferPage',
        tags: ['Waitlist'],
        summary:
          'The offer page’s button (a form post): books the time offered and shows the confirmation code',
        security: [],
        params: TokenParams,
        response: { 200: HtmlPage, 404: HtmlPage, 409: HtmlPage, 410: HtmlPage },
      },
    },
    async (request, reply) => {
      const view = await acceptOfferOnPage(
        app.db,
        app.availability,
        app.publicBookingDeposits,
        request.params.token,
        app.clock.now(),
        request,
        (work) => withTx(app.db, work) as Promise<{ booking: { payment_client_secret?: string } }>,
        app.changes,
      );
      return reply
        .code(bookedStatus(view))
        .headers(OFFER_PAGE_HEADERS)
        .type('text/html; charset=utf-8')
        .send(offerPage(view));
    },
  );

  app.post(
    '/v1/public/waitlist-offers/:token/accept',
    {
      schema: {
        operationId: 'acceptWaitlistOffer',
        tags: ['Waitlist'],
        summary: 'Accept a waitlist offer: books the time offered for the guest waiting, online',
        description:
          'An online booking in every rule (source `online`; the online party limit, pacing, the deposit and the monthly quota apply): with a deposit the booking is `pending` and the answer carries `payment_client_secret`, as `POST /v1/bookings` does. 404 unknown token, 410 `offer_expired` past its time, 409 `conflict` once booked, 409 `slot_unavailable` when the time was taken meanwhile.',
        security: [],
        params: TokenParams,
        response: { 201: Type.Object({ booking: CreatedBookingSchema }), ...errorResponses(404, 410) },
      },
    },
    async (request, reply) =>
      acceptOffer(
        app.db,
        app.availability,
        app.publicBookingDeposits,
        request.params.token,
        app.clock.now(),
        request,
        commitWith(request, reply, 201),
        app.changes,
      ),
  );
};
