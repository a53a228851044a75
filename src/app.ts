import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type onRequestHookHandler,
  type onSendHookHandler,
  type RouteOptions,
} from 'fastify';
import { auditArea } from './audit/audit.area.ts';
import { availabilityArea } from './availability/availability.area.ts';
import { AvailabilityService } from './availability/availability.service.ts';
import { billingArea } from './billing/billing.area.ts';
import { bookingsArea } from './bookings/bookings.area.ts';
import type { PublicBookingDeposits } from './bookings/new-booking.service.ts';
import { CalendarFetcher } from './calendars/calendar-fetch.adapter.ts';
import { CalendarParser } from './calendars/calendar-parser.adapter.ts';
import { calendarsArea } from './calendars/calendars.area.ts';
import type { Config } from './config.ts';
import { customersArea } from './customers/customers.area.ts';
import { dashboardArea } from './dashboard/dashboard.area.ts';
import { depositsArea } from './deposits/deposits.area.ts';
import { depositTerms } from './deposits/deposits.queries.ts';
import { type DepositDeps, publicBookingDeposits } from './deposits/deposits.service.ts';
import { DatabaseAuthenticator } from './developers/authenticator.service.ts';
import { developersArea } from './developers/developers.area.ts';
import { liveArea } from './live/live.area.ts';
import { messagesArea } from './messages/messages.area.ts';
import { partnersArea } from './partners/partners.area.ts';
import { combineHandlers, InboundEvents } from './payments/inbound.events.ts';
import { paymentsArea } from './payments/payments.area.ts';
import { Processors, paymentsWarning } from './payments/processors.adapter.ts';
import type { Area } from './platform/area.ts';
import { KeyUsageRecorder, PasswordHasher, TokenService } from './platform/auth.ts';
import { ChangeFeed } from './platform/change-feed.ts';
import { ChangeHints, ChangeLogReader, listenForHints, pruneChangeLog } from './platform/change-log.ts';
import { type Clock, systemClock } from './platform/clock.ts';
import { registerCors } from './platform/cors.ts';
import type { Database, Db } from './platform/db.ts';
import { registerDbDeadline } from './platform/deadline.ts';
import { AppError, registerErrorHandler, sendError } from './platform/errors.ts';
import { registerFairShare } from './platform/fair-share.ts';
import { healthRoutes, registerPressure } from './platform/health.ts';
import { VIEWPORT } from './platform/html.ts';
import { registerIdempotency } from './platform/idempotency.ts';
import { JobRunner } from './platform/jobs.ts';
import { LiveEvents } from './platform/live-events.ts';
import { registerMetrics } from './platform/metrics.ts';
import { completeDocument, documentErrors, refResolver } from './platform/openapi.ts';
import { CursorCodec } from './platform/pagination.ts';
import { registerRateLimit } from './platform/rate-limit.ts';
import { ErrorBody } from './platform/schemas.ts';
import { deriveKey } from './platform/secrets.ts';
import { registerShutdown } from './platform/shutdown.ts';
import { registerTextGuard } from './platform/text-guard.ts';
import { requestValidators, responseSerializers } from './platform/validation.ts';
import { API_VERSION } from './platform/version.ts';
import { publicArea } from './public/public.area.ts';
import { resourcesArea } from './resources/resources.area.ts';
import { sandboxArea } from './sandbox/sandbox.area.ts';
import { servicesArea } from './services/services.area.ts';
import { settingsArea } from './settings/settings.area.ts';
import { statsArea } from './stats/stats.area.ts';
import { waitlistArea } from './waitlist/waitlist.area.ts';
import { walkInsArea } from './walk-ins/walk-ins.area.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.jobs.ts';
import { WebhookTargets } from './webhooks/target.adapter.ts';
import { webhooksArea } from './webhooks/webhooks.area.ts';
import { webhookSealKey } from './webhooks/webhooks.service.ts';
import { widgetArea } from './widget/widget.area.ts';

/**
 * swagger-ui's own policy asks browsers to upgrade every request to https, which breaks `/docs`
 * opened over plain http from another machine; and it allows fonts and styles from any https
 * host and images of an outside validator, none of which the page uses: it loads only its own files.
 */
const docsPolicy = (policy: string) =>
  policy
    .replace(/\s*upgrade-insecure-requests;?/, '')
    .replace(' validator.swagger.io', '')
    .replace(/ https:/g, '')
    .trim();

/** The business areas, in the order the API reference lists their routes. */
const areas = (db: Db): readonly Area[] => [
  developersArea,
  billingArea,
  paymentsArea({ isSandbox: async (businessId) => (await depositTerms(db, businessId))?.is_dev === true }),
  auditArea,
  messagesArea,
  statsArea,
  sandboxArea,
  resourcesArea,
  servicesArea,
  settingsArea,
  publicArea,
  availabilityArea,
  bookingsArea,
  depositsArea,
  customersArea,
  waitlistArea,
  walkInsArea,
  liveArea,
  webhooksArea,
  calendarsArea,
  partnersArea,
  widgetArea,
  dashboardArea,
];

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    database: Database;
    config: Config;
    tokens: TokenService;
    passwords: PasswordHasher;
    changes: ChangeFeed;
    /** The change log's reader, which moves `changes` on and feeds the live streams. */
    changeLog: ChangeLogReader;
    clock: Clock;
    jobs: JobRunner;
    payments: Processors;
    inboundEvents: InboundEvents;
    /** What the deposit use cases and jobs call beside a transaction. */
    deposits: DepositDeps;
    publicBookingDeposits: PublicBookingDeposits;
    /** Availability and its caches, one per process: the slot grid and dynamic mode's point checks share them. */
    availability: AvailabilityService;
    /** Where webhooks may go, the key their secrets are sealed with, and the dispatcher sending them. */
    webhooks: { targets: WebhookTargets; sealKey: Buffer; dispatcher: WebhookDispatcher };
    /** Reads the external calendars of imports, under the webhook URL rules. */
    calendarFetcher: CalendarFetcher;
    calendarParser: CalendarParser;
  }
}

/** The reference's HTML pages, as Swagger UI routes them. */
const DOCS_PAGES = new Set(['/docs', '/docs/']);

/**
 * The server the reference's "Try it out" calls. A loopback address (the default without
 * PUBLIC_BASE_URL, even with HOST=0.0.0.0) would send a browser on another machine to itself:
 * then the reference names the server it was loaded from.
 */
const documentedServer = (publicBaseUrl: string) =>
  /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(publicBaseUrl) ? '/' : publicBaseUrl;

export interface AppDeps {
  config: Config;
  database: Database;
  logger?: boolean | object;
}

/**
 * A client secret can travel in a URL (the simulated processor's checkout page, as the real
 * processor's), and so can a guest's email or phone (looking up their booking), an invitation
 * link's token (whoever reads it could choose the invited person's password) and a calendar
 * feed's token, its path (whoever reads it can read the bookings): logged requests show the URL
 * without them.
 */
const withoutSecrets = (url: string) =>
  url
    .replace(/([?&](?:client_secret|email|phone|token)=)[^&]*/g, '$1[redacted]')
    .replace(/^(\/calendar\/)[^/?]+/, '$1[redacted]');

const noStore: onRequestHookHandler = (_request, reply, done) => {
  reply.header('Cache-Control', 'no-store');
  done();
};

/**
 * The database logs every change for all processes, which read it a moment after commit; this
 * process's own writes are known at once, so a client that wrote never reads a cached answer from
 * before, and they hurry the reading of the log (`hints`: sent after the commit, as the answer
 * goes out). A refusal wrote nothing (its transaction was rolled back), so it leaves the caches as
 * they are.
 */
function announceChanges(changes: ChangeFeed, hints: ChangeHints, route: RouteOptions): onSendHookHandler {
  const bookingsOnly = route.config?.writes === 'bookings';
  const path = route.url.replace(/\/+$/, '');
  const credentials = path.startsWith('/v1/manage/api-keys') || path.startsWith('/v1/developer');
  const announce: onSendHookHandler = (request, reply, payload, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 400) {
      return done(null, payload);
    }
    const businessId = request.principal?.businessId;
    if (businessId && request.bookedDates) changes.bookingDaysChanged(businessId, request.bookedDates);
    else if (businessId && bookingsOnly) changes.bookingsChanged(businessId);
    else if (businessId) changes.businessChanged(businessId);
    if (credentials) changes.credentialsChanged();
    hints.written();
    done(null, payload);
  };
  return announce;
}

const requestLog = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: withoutSecrets(request.url),
    host: request.host,
    remoteAddress: request.ip,
  }),
};

/**
 * One log line per request, when it is answered, naming the request: Fastify's own two lines
 * (received, completed), each its own write to stdout, added a sixth to a booking's server time
 * at `info`.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

export async function buildApp({ config, database, logger = false }: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: typeof logger === 'object' ? { ...logger, serializers: requestLog } : logger,
    logController: new OneLinePerRequest(),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
    bodyLimit: 256 * 1024,
    // Requests arriving on open connections while stopping are served (answers close their
    // connections), not refused: see platform/shutdown.ts.
    return503OnClosing: false,
    schemaController: {
      compilersFactory: { buildValidator: requestValidators(), buildSerializer: responseSerializers() },
    },
    // A URL the router cannot even decode (`/v1/x/%zz`) still gets the one error format and headers.
    frameworkErrors: (_error, request, reply) => {
      reply.header('API-Version', API_VERSION);
      reply.header('x-request-id', request.id);
      sendError(reply, new AppError('bad_request', 'the URL is malformed'));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const tokens = new TokenService(config.jwtSecret);
  const keyUsage = new KeyUsageRecorder(database.db);
  const clock = systemClock();
  const changes = new ChangeFeed(clock, config.changeFeed.maxLagMs);
  const stopWatching = database.outages.watch({
    began: (outage, error) =>
      app.log.error(
        { err: error, outage },
        `database ${outage}: requests needing it are answered 503 service_unavailable until it is back`,
      ),
    ended: (outage, failures, lastedMs) =>
      app.log.info({ outage, failures, lasted_ms: lastedMs }, `database ${outage} no more: back to normal`),
  });
  const liveEvents = new LiveEvents(
    config.streams,
    () => clock.now(),
    (principals) => app.authenticator.lapsed(principals),
  );
  const changeLog = new ChangeLogReader(database.db, config.changeFeed.pollMs, clock, {
    apply: (row) => {
      if (row.cache) changes.apply(row.cache);
      if (row.live) liveEvents.apply(row.live);
    },
    started: () => {
      changes.connected();
      liveEvents.up();
    },
    lost: () => {
      changes.disconnected();
      liveEvents.down();
    },
    polled: (startedAt) => changes.polled(startedAt),
  });
  await changeLog.start();
  // PGlite serves one process: its own writes wake its reader, and no other process needs a hint.
  const hinting = config.changeFeed.hints && database.engine === 'postgres';
  const hints = new ChangeHints(changeLog, hinting ? database.db : undefined);
  const stopListening = hinting ? await listenForHints(database, changeLog) : async () => {};
  app.decorate('db', database.db);
  app.decorate('database', database);
  app.decorate('config', config);
  app.decorate('clock', clock);
  app.decorate('cursors', new CursorCodec(deriveKey(config.jwtSecret, 'list cursors')));
  app.decorate('tokens', tokens);
  app.decorate('passwords', new PasswordHasher(config.passwordCost));
  app.decorate('changes', changes);
  app.decorate('changeLog', changeLog);
  app.decorate('liveEvents', liveEvents);
  app.decorate(
    'authenticator',
    new DatabaseAuthenticator(database.db, tokens, keyUsage, changes, new URL(config.publicBaseUrl).origin),
  );
  app.decorate('jobs', new JobRunner(app.log, database.outages));
  app.decorate('payments', new Processors(config, database.db, clock));
  const noProcessor = paymentsWarning(config);
  if (noProcessor) app.log.warn(noProcessor);
  app.decorate(
    'inboundEvents',
    new InboundEvents(database.db, combineHandlers(billingArea.handlers, depositsArea.handlers), () => ({
      now: clock.now(),
      changes,
      processors: app.payments,
      log: app.log,
    })),
  );
  app.decorate('availability', new AvailabilityService(database.db, changes, clock));
  app.decorate('deposits', {
    db: database.db,
    availability: app.availability,
    payments: app.payments,
    publicBaseUrl: config.publicBaseUrl,
    log: app.log,
  });
  app.decorate('publicBookingDeposits', publicBookingDeposits(app.deposits));
  const webhookTargets = new WebhookTargets(config);
  const sealKey = webhookSealKey(config.jwtSecret);
  const dispatcher = new WebhookDispatcher({
    db: database.db,
    clock,
    targets: webhookTargets,
    sealKey,
    retrySchedule: config.webhookRetrySchedule,
    log: app.log,
  });
  app.decorate('webhooks', { targets: webhookTargets, sealKey, dispatcher });
  app.decorate('calendarFetcher', new CalendarFetcher(webhookTargets));
  app.decorate('calendarParser', new CalendarParser());
  app.decorateRequest('principal', null);
  app.decorateRequest('bookedDates', null);
  // First of the request hooks: the deadline covers every database wait of the request, the guard's too.
  registerDbDeadline(app, config.dbRequestDeadlineMs);
  registerFairShare(app, config.dbConcurrencyPerBusiness, config.dbTimeouts.acquireMs);
  // In this order, as runAll() runs them: what one makes due (a lapsed deposit's cancellation, an
  // offer) is sent by the messages and webhooks after it in the same pass. Before the close hook
  // below: Fastify runs close hooks last-added first, so what an area's jobs hold is closed once
  // that hook has stopped the jobs.
  for (const area of [
    depositsArea,
    billingArea,
    waitlistArea,
    messagesArea,
    webhooksArea,
    calendarsArea,
    customersArea,
  ]) {
    for (const job of area.jobs?.(app) ?? []) app.jobs.add(job);
  }
  app.jobs.add({ name: 'change-log-prune', everyMs: 300_000, run: () => pruneChangeLog(database.db) });
  // Before the server waits for its connections: an open stream would hold it until cut.
  app.addHook('preClose', async () => liveEvents.stop());
  app.addHook('onClose', async () => {
    await app.jobs.stop();
    hints.stop();
    await stopListening();
    await changeLog.stop();
    await keyUsage.stop();
    stopWatching();
  });
  // Every answer names the API version and the request id, 404s included: set without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('API-Version', API_VERSION);
    reply.header('x-request-id', request.id);
    done();
  });
  // What depends on the route is decided once per route, as it is added, not per request: a GET
  // carries no hook that would do nothing for it.
  app.addHook('onRoute', (route) => {
    // First of the route's own hooks, so that its refusals carry it too.
    if (route.config?.sensitive) route.onRequest = [noStore, ...[route.onRequest ?? []].flat()];
    if ([route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD')) {
      route.onSend = [...[route.onSend ?? []].flat(), announceChanges(changes, hints, route)];
    }
  });

  registerErrorHandler(app);
  registerShutdown(app);
  await registerPressure(app);
  registerTextGuard(app);
  app.addSchema(ErrorBody);

  // Many clients send `Content-Type: application/json` on every call, bodiless DELETEs included:
  // an empty body is no body, not malformed JSON.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // JSON only: a text/plain body is 415 like any other non-JSON type, not a string to validate.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    parseJson(request, body as string, done);
  });

  app.addHook('onRoute', documentErrors);
  await app.register(swagger, {
    refResolver,
    transformObject: completeDocument,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Slotwise API',
        version: API_VERSION,
        description:
          'Multi-tenant booking and availability engine. Send credentials as `Authorization: Bearer <API key or JWT>`.',
      },
      servers: [{ url: documentedServer(config.publicBaseUrl) }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          partnerBasic: {
            type: 'http',
            scheme: 'basic',
            description:
              "a reservation partner's credentials (POST /v1/manage/partners), on the partner routes only",
          },
        },
      },
      security: [{ bearer: [] }],
    },
  });
  // In a context of its own, so that no other route's answer passes through the hook.
  await app.register(async (docs) => {
    // Swagger UI's page declares no viewport: a phone would lay it out at a desktop's width.
    docs.addHook('onSend', async (request, _reply, payload) =>
      typeof payload === 'string' && DOCS_PAGES.has(request.routeOptions.url ?? '')
        ? payload.replace('<head>', `<head>\n${VIEWPORT}`)
        : payload,
    );
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      transformStaticCSP: docsPolicy,
      uiConfig: { validatorUrl: null },
    });
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // After swagger, which documents only the routes added after it.
  await registerMetrics(app);

  await registerCors(app);
  await registerRateLimit(app, {
    publicBookingsPerHour: async (businessId) =>
      (await app.availability.businessRules(businessId, clock.now()))?.public_bookings_per_ip_per_hour ??
      null,
  });
  await registerIdempotency(app);

  await app.register(healthRoutes);
  for (const area of areas(database.db)) await area.routes(app);

  return app;
}
