import Fastify from 'fastify';

/** The yardstick: a bare Fastify JSON route with no database, auth or validation. */
const app = Fastify({ logger: false });
const body = {
  business_id: '00000000-0000-4000-8000-000000000000',
  booking_date: '2026-12-01',
  capacity: 2,
  slots: Array.from({ length: 22 }, (_, i) => ({
    time: `${String(11 + Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`,
    available: i % 3 !== 0,
    remaining_resources: i % 7,
  })),
};
app.get('/bare', async () => body);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
