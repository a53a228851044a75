import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from './app.ts';
import { setSubscription } from './billing/subscription.service.ts';
import type { Config } from './config.ts';
import { todayIn, wallTimeToInstant } from './engine/index.ts';
import { openPGlite, openPostgres } from './platform/db.ts';
import { migrate } from './platform/migrate.ts';

export const DEMO_PASSWORD = 'slotwise-demo-password';
const DEMO_TIMEZONE = 'Europe/Berlin';

const OPEN_DAY = { is_open: true, open_time: '11:30', close_time: '23:00', last_booking_time: null };
/** Sunday first; closed on Monday. */
const DEMO_HOURS = [OPEN_DAY, null, OPEN_DAY, OPEN_DAY, OPEN_DAY, OPEN_DAY, OPEN_DAY].map((day, index) =>
  day
    ? { day_of_week: index, ...day }
    : { day_of_week: index, is_open: false, open_time: null, close_time: null, last_booking_time: null },
);
const OPEN_WEEKDAYS = DEMO_HOURS.filter((day) => day.is_open).map((day) => day.day_of_week);

/**
 * The kitchen serves lunch and dinner, to at most 20 guests arriving at one time; between them,
 * and in the half hour before lunch, nobody is seated.
 */
const DEMO_PERIODS = [
  {
    name: 'Lunch',
    days_of_week: OPEN_WEEKDAYS,
    start_time: '12:00',
    end_time: '14:30',
    slot_interval_minutes: 15,
    max_covers_per_slot: 20,
  },
  {
    name: 'Dinner',
    days_of_week: OPEN_WEEKDAYS,
    start_time: '18:00',
    end_time: '22:30',
    slot_interval_minutes: 30,
    max_covers_per_slot: 20,
  },
];
const DEMO_TURN_TIMES = [
  { min_party: 1, max_party: 4, duration_minutes: 90 },
  { min_party: 5, max_party: 50, duration_minutes: 120 },
];
const DEMO_PHONE = '+49 30 901820';
/** Parties above this call the venue; tables 4 and 5 together seat this many. */
const MAX_ONLINE_PARTY = 10;

const DEMO_TABLES = [
  { name: 'Window 1', section: 'Window', capacity_min: 1, capacity_max: 2 },
  { name: 'Window 2', section: 'Window', capacity_min: 1, capacity_max: 2 },
  { name: 'Window 3', section: 'Window', capacity_min: 2, capacity_max: 4 },
  { name: 'Main 4', section: 'Main room', capacity_min: 2, capacity_max: 6 },
  { name: 'Main 5', section: 'Main room', capacity_min: 2, capacity_max: 6 },
  { name: 'Main 6', section: 'Main room', capacity_min: 3, capacity_max: 6 },
  { name: 'Terrace 7', section: 'Terrace', capacity_min: 4, capacity_max: 6 },
  { name: 'Terrace 8', section: 'Terrace', capacity_min: 5, capacity_max: 8 },
];

/** Rooms booked for any length from any minute: the demo's dynamic-mode business. */
const STUDIO_ROOMS = [
  { name: 'Room A', capacity_min: 1, capacity_max: 4 },
  { name: 'Room B', capacity_min: 1, capacity_max: 8 },
];
const STUDIO_HOURS = [0, 1, 2, 3, 4, 5, 6].map((day) => ({
  day_of_week: day,
  is_open: true,
  open_time: '10:00',
  close_time: '22:00',
}));
const PLAN_PERIOD_DAYS = 30;

/** A yoga studio: one room, a class of 12 on the hour. */
const CLASS_SEATS = 12;
const YOGA_HOURS = [0, 1, 2, 3, 4, 5, 6].map((day) => ({
  day_of_week: day,
  is_open: true,
  open_time: '07:00',
  close_time: '21:00',
}));
/** A salon: a colour needs a stylist and a chair at once; three stylists, two chairs. */
const STYLISTS = ['Ana', 'Ben', 'Cleo'];
const CHAIRS = ['Chair 1', 'Chair 2'];
const SALON_HOURS = [0, 1, 2, 3, 4, 5, 6].map((day) =>
  day === 0
    ? { day_of_week: day, is_open: false, open_time: null, close_time: null }
    : { day_of_week: day, is_open: true, open_time: '09:00', close_time: '18:00' },
);

export interface DemoBusiness {
  developer: { email: string; password: string };
  business: { id: string; name: string; slug: string };
  apiKey: string;
  /** A live business in dynamic mode, on the developer's premium plan. */
  studio: { id: string; name: string; apiKey: string };
  /** A sandbox yoga studio whose class seats 12 per start (a service with `seats`). */
  classes: { id: string; name: string; apiKey: string; serviceId: string };
  /** A sandbox salon whose colour holds a stylist and a chair together (a service with `requirements`). */
  salon: { id: string; name: string; apiKey: string; serviceId: string };
  resources: { id: string; name: string; section: string; capacity_max: number }[];
  services: { id: string; name: string; duration_minutes: number }[];
  blackout: { id: string; start_date: string; end_date: string; reason: string };
  /** A coming Saturday, for the availability example. */
  exampleDate: string;
  /** A reservation partner the bistro is listed with (docs/partners.md): its HTTP Basic credentials. */
  partner: { name: string; username: string; password: string };
}

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Seeds a sandbox bistro (lunch, dinner, turn times), a rehearsal studio in dynamic mode, a yoga
 * studio with a class of 12 and a salon whose colour holds a stylist and a chair, through the public API, so every validation and audit rule applies as it would to a client,
 * with the developer on the premium plan as a paid checkout would leave it. Returns what it made.
 */
export async function seedDemo(app: FastifyInstance, now: Date = new Date()): Promise<DemoBusiness> {
  const send = async (method: InjectOptions['method'], url: string, payload: object, token?: string) => {
    const response = await app.inject({
      method,
      url,
      payload,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    if (response.statusCode >= 300) {
      throw new Error(`${method} ${url} answered ${response.statusCode}: ${response.body}`);
    }
    return response.json();
  };

  const email = `demo+${now.getTime()}@slotwise.dev`;
  const registered = await send('POST', '/v1/auth/developer/register', {
    email,
    password: DEMO_PASSWORD,
    first_name: 'Demo',
    last_name: 'Developer',
  });
  const { access_token } = await send('POST', '/v1/auth/developer/login', { email, password: DEMO_PASSWORD });
  await setSubscription(app.db, app.changes, registered.id, {
    status: 'active',
    planId: 'premium',
    currentPeriodEndsAt: new Date(now.getTime() + PLAN_PERIOD_DAYS * 86_400_000),
  });
  const created = await send(
    'POST',
    '/v1/developer/businesses',
    { name: 'Bistro Demo', business_type: 'restaurant', is_dev: true },
    access_token,
  );
  const apiKey: string = created.api_key;

  await send(
    'PATCH',
    '/v1/manage/settings',
    {
      timezone: DEMO_TIMEZONE,
      default_slot_interval_minutes: 30,
      default_slot_duration_minutes: 90,
      max_capacity: 12,
      max_online_party_size: MAX_ONLINE_PARTY,
      turn_times: DEMO_TURN_TIMES,
      phone: DEMO_PHONE,
    },
    apiKey,
  );
  await send('PUT', '/v1/manage/hours', DEMO_HOURS, apiKey);
  // After the hours: a period must lie inside the hours of each of its weekdays.
  await send('PUT', '/v1/manage/service-periods', DEMO_PERIODS, apiKey);

  const resources: DemoBusiness['resources'] = [];
  for (const table of DEMO_TABLES) {
    resources.push(await send('POST', '/v1/manage/resources', { ...table, resource_type: 'table' }, apiKey));
  }
  const joined = ['Main 4', 'Main 5'].map((name) => resources.find((r) => r.name === name)!.id);
  await send(
    'POST',
    '/v1/manage/combinations',
    { name: 'Tables 4+5', resource_ids: joined, capacity_min: 7, capacity_max: MAX_ONLINE_PARTY },
    apiKey,
  );

  const mainRoom = resources.filter((r) => r.section === 'Main room').map((r) => r.id);
  const services = [
    await send(
      'POST',
      '/v1/manage/services',
      { name: 'À la carte', description: 'A table for lunch or dinner', duration_minutes: 90 },
      apiKey,
    ),
    await send(
      'POST',
      '/v1/manage/services',
      {
        name: "Chef's tasting menu",
        description: 'Seven courses, served in the main room',
        duration_minutes: 150,
        buffer_after_minutes: 15,
        price_cents: 8900,
        resource_ids: mainRoom,
      },
      apiKey,
    ),
  ];

  const today = todayIn(DEMO_TIMEZONE, now.getTime());
  const blackout = await send(
    'POST',
    '/v1/manage/blackout-dates',
    { start_date: addDays(today, 21), end_date: addDays(today, 22), reason: 'Closed for a private event' },
    apiKey,
  );
  const weekday = new Date(`${today}T00:00:00Z`).getUTCDay();
  const exampleDate = addDays(today, (6 - weekday + 7) % 7 || 7);

  const studio = await send(
    'POST',
    '/v1/developer/businesses',
    { name: 'Rehearsal Studio Demo', business_type: 'studio' },
    access_token,
  );
  await send(
    'PATCH',
    '/v1/manage/settings',
    { timezone: DEMO_TIMEZONE, booking_mode: 'dynamic' },
    studio.api_key,
  );
  await send('PUT', '/v1/manage/hours', STUDIO_HOURS, studio.api_key);
  for (const room of STUDIO_ROOMS) {
    await send('POST', '/v1/manage/resources', { ...room, resource_type: 'room' }, studio.api_key);
  }

  const yoga = await send(
    'POST',
    '/v1/developer/businesses',
    { name: 'Yoga Studio Demo', business_type: 'studio', is_dev: true },
    access_token,
  );
  await send('PATCH', '/v1/manage/settings', { timezone: DEMO_TIMEZONE, max_capacity: 4 }, yoga.api_key);
  await send('PUT', '/v1/manage/hours', YOGA_HOURS, yoga.api_key);
  await send(
    'POST',
    '/v1/manage/resources',
    { name: 'Studio room', capacity_min: 1, capacity_max: 1, resource_type: 'room' },
    yoga.api_key,
  );
  const flow = await send(
    'POST',
    '/v1/manage/services',
    { name: 'Yoga flow', description: 'An hour of vinyasa', duration_minutes: 60, seats: CLASS_SEATS },
    yoga.api_key,
  );

  const salon = await send(
    'POST',
    '/v1/developer/businesses',
    { name: 'Salon Demo', business_type: 'salon', is_dev: true },
    access_token,
  );
  await send('PATCH', '/v1/manage/settings', { timezone: DEMO_TIMEZONE, max_capacity: 1 }, salon.api_key);
  await send('PUT', '/v1/manage/hours', SALON_HOURS, salon.api_key);
  const salonResource = async (name: string, resource_type: string) =>
    (
      await send(
        'POST',
        '/v1/manage/resources',
        { name, capacity_min: 1, capacity_max: 1, resource_type },
        salon.api_key,
      )
    ).id as string;
  const stylists = [];
  for (const name of STYLISTS) stylists.push(await salonResource(name, 'stylist'));
  const chairs = [];
  for (const name of CHAIRS) chairs.push(await salonResource(name, 'chair'));
  const colour = await send(
    'POST',
    '/v1/manage/services',
    {
      name: 'Colour',
      duration_minutes: 90,
      requirements: [
        { name: 'Stylist', resource_ids: stylists },
        { name: 'Chair', resource_ids: chairs },
      ],
    },
    salon.api_key,
  );

  const partner = await send('POST', '/v1/manage/partners', { name: 'Demo maps partner' }, apiKey);

  return {
    developer: { email, password: DEMO_PASSWORD },
    business: { id: created.business_id, name: created.name, slug: created.slug },
    apiKey,
    studio: { id: studio.business_id, name: studio.name, apiKey: studio.api_key },
    classes: { id: yoga.business_id, name: yoga.name, apiKey: yoga.api_key, serviceId: flow.id },
    salon: { id: salon.business_id, name: salon.name, apiKey: salon.api_key, serviceId: colour.id },
    resources,
    services,
    blackout,
    exampleDate,
    partner: { name: partner.name, username: partner.username, password: partner.password },
  };
}

/** What the demo command prints: the credentials once, and two calls to try. */
export function describeDemo(demo: DemoBusiness, baseUrl: string): string {
  const sections = [...new Set(demo.resources.map((r) => r.section))].join(', ');
  const services = demo.services.map((s) => `${s.name} (${s.duration_minutes} min)`).join(', ');
  return [
    '',
    `Demo restaurant "${demo.business.name}" is ready (sandbox business, time zone ${DEMO_TIMEZONE}).`,
    '',
    `  Developer login  ${demo.developer.email}`,
    `  Password         ${demo.developer.password}`,
    `  Business id      ${demo.business.id}`,
    `  Slug             ${demo.business.slug}`,
    `  API key          ${demo.apiKey}`,
    '                   (all scopes; shown only now, keep it)',
    '',
    `  ${demo.resources.length} tables in ${sections}; services ${services}.`,
    '  Open Tuesday to Sunday from 11:30 to 23:00, closed on Monday; lunch 12:00-14:30 every 15 minutes',
    '  and dinner 18:00-22:30 every 30, at most 20 guests arriving at one time. Parties of up to 4 keep',
    `  their table 90 minutes, of 5 or more 2 hours; tables Main 4 and Main 5 join for up to ${MAX_ONLINE_PARTY},`,
    `  and larger parties are asked to call ${DEMO_PHONE}.`,
    `  Blackout ${demo.blackout.start_date} to ${demo.blackout.end_date}.`,
    '',
    `"${demo.studio.name}" books its ${STUDIO_ROOMS.length} rooms in dynamic mode: any length, from any minute.`,
    `  Business id      ${demo.studio.id}`,
    `  API key          ${demo.studio.apiKey}`,
    '',
    `"${demo.classes.name}" (sandbox) books a class of ${CLASS_SEATS} on the hour, 07:00-21:00, seat by seat.`,
    `  Business id      ${demo.classes.id}`,
    `  API key          ${demo.classes.apiKey}`,
    '',
    `"${demo.salon.name}" (sandbox): a colour holds one of ${STYLISTS.length} stylists and one of ${CHAIRS.length} chairs at once.`,
    `  Business id      ${demo.salon.id}`,
    `  API key          ${demo.salon.apiKey}`,
    '',
    `The bistro is listed with the reservation partner "${demo.partner.name}" (Maps Booking v3, docs/partners.md):`,
    `  User name        ${demo.partner.username}`,
    `  Password         ${demo.partner.password}`,
    '                   (shown only now)',
    '',
    `The developer is on the premium plan for ${PLAN_PERIOD_DAYS} days (dynamic mode needs it).`,
    '',
    'Start the server with `npm start`, then open:',
    '',
    `  Booking page     ${baseUrl}/book/${demo.business.slug}`,
    `  Staff dashboard  ${baseUrl}/staff/  (sign in with the developer login above)`,
    '',
    'or try:',
    '',
    `  curl -H "Authorization: Bearer ${demo.apiKey}" ${baseUrl}/v1/manage/resources`,
    `  curl "${baseUrl}/v1/availability/${demo.business.id}?date=${demo.exampleDate}&capacity=2"`,
    `  curl "${baseUrl}/v1/availability/${demo.business.id}?date=${demo.exampleDate}&capacity=6"`,
    `  curl -H "Authorization: Bearer ${demo.studio.apiKey}" "${baseUrl}/v1/dynamic/availability/${demo.studio.id}?booking_date=${demo.exampleDate}&start_time=14:10&duration_minutes=90&capacity=3"`,
    `  curl "${baseUrl}/v1/availability/${demo.classes.id}?date=${demo.exampleDate}&capacity=1&service_id=${demo.classes.serviceId}"`,
    `  curl "${baseUrl}/v1/availability/${demo.salon.id}?date=${demo.exampleDate}&capacity=1&service_id=${demo.salon.serviceId}&view=resources"`,
    `  curl -H "Authorization: Bearer ${demo.apiKey}" ${baseUrl}/v1/manage/subscription`,
    `  curl -u ${demo.partner.username}:${demo.partner.password} ${baseUrl}/partners/maps-booking/feeds/services.json`,
    `  curl -u ${demo.partner.username}:${demo.partner.password} -H 'Content-Type: application/json' ${baseUrl}/partners/maps-booking/v3/BatchAvailabilityLookup \\`,
    `    -d '{"merchant_id":"${demo.business.id}","slot_time":[{"service_id":"reservation","start_sec":"${wallTimeToInstant(demo.exampleDate, '19:00', DEMO_TIMEZONE)! / 1000}","resource_ids":{"party_size":2}}]}'`,
    '',
  ].join('\n');
}

/** `npm run demo`: seeds a sandbox bistro, a rehearsal studio, a yoga studio and a salon into the configured database and prints how to use it. */
export async function runDemo(config: Config): Promise<void> {
  // The embedded data folder is locked by a running server, so this runs while it is stopped.
  const database = config.databaseUrl
    ? await openPostgres(config.databaseUrl)
    : await openPGlite(config.dataDir);
  try {
    await migrate(database);
    const app = await buildApp({ config, database });
    try {
      const demo = await seedDemo(app);
      process.stdout.write(`${describeDemo(demo, config.publicBaseUrl)}\n`);
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}
