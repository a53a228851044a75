import { createSlotwiseClient } from '@slotwise/sdk';

const slotwise = createSlotwiseClient({
  baseUrl: process.env.SLOTWISE_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.SLOTWISE_API_KEY, // a secret key with the write scope
});
const businessId = process.env.SLOTWISE_BUSINESS_ID ?? '';
const date = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);

const day = await slotwise.GET('/v1/availability/{business_id}', {
  params: { path: { business_id: businessId }, query: { booking_date: date, capacity: 2 } },
});
if (day.error) throw new Error(day.error.error.message);
const slot = day.data.slots.find((candidate) => candidate.available);
if (!slot) throw new Error(`nothing is free on ${date}`);

const booked = await slotwise.POST('/v1/bookings', {
  body: {
    business_id: businessId,
    booking_date: date,
    start_time: slot.time,
    capacity: 2,
    first_name: 'Grace',
    last_name: 'Hopper',
    email: 'grace@example.com',
    phone: '+49 30 5550 1234',
  },
});
if (booked.error) throw new Error(`${booked.error.error.code}: ${booked.error.error.message}`);
console.log(`booked ${booked.data.booking.confirmation_code} at ${slot.time} on ${date}`);
