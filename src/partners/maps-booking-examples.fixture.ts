// Request/response JSON examples published on the public Maps Booking / Actions Center
// pages for the booking server API v3 (dining / reservations vertical), copied by hand.
// int64 values are strings where the page shows strings; where a page shows a bare
// number (UpdateBooking response) it is kept as published.
//
// No published example found (not invented):
//   - HealthCheck (GET, no body on either side)
//   - CheckAvailability (request or response)
//   - UpdateBooking for a cancellation (status: "CANCELED")
//   - GetBookingStatus (request or response)
//   - ListBookings (request or response)
//   - any response carrying booking_failure

const DINING_E2E_SAMPLES =
  'https://developers.google.com/actions-center/verticals/reservations/e2e/reference/booking-server-code-samples/dining-payload-sample';
const CREATE_BOOKING_SAMPLES =
  'https://developers.google.com/actions-center/verticals/reservations/e2e/integration-steps/booking-server-ready/createbooking/samples-definitions';
const UPDATE_BOOKING_SAMPLES =
  'https://developers.google.com/actions-center/verticals/reservations/e2e/integration-steps/booking-server-ready/updatebooking/samples-definitions';

export const examples = [
  {
    method: 'BatchAvailabilityLookup',
    source: DINING_E2E_SAMPLES,
    request: {
      merchant_id: '1234',
      slot_time: [
        {
          duration_sec: '1800',
          resource_ids: { party_size: 2 },
          service_id: '5678',
          start_sec: '1606467600',
        },
        {
          duration_sec: '1800',
          resource_ids: { party_size: 2 },
          service_id: '5678',
          start_sec: '1606469400',
        },
        {
          duration_sec: '1800',
          resource_ids: { party_size: 2 },
          service_id: '5678',
          start_sec: '1606471200',
        },
      ],
    },
  },
  {
    method: 'CreateBooking',
    source: CREATE_BOOKING_SAMPLES,
    request: {
      idempotency_token: '18307119013960637991',
      payment_information: {
        prepayment_status: 'PREPAYMENT_NOT_PROVIDED',
      },
      slot: {
        confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
        duration_sec: '1800',
        merchant_id: '1234',
        resources: { party_size: 2 },
        service_id: '5678',
        start_sec: '1606467600',
      },
      user_information: {
        email: 'john.smith@gmail.com',
        family_name: 'Smith',
        given_name: 'John',
        telephone: '+12091111111',
        user_id: '1111111111111111111',
      },
    },
  },
  {
    // Modification: moves booking 890 to a new start time. Note: no status, no
    // merchant_id/service_id in the slot, no update_mask.
    method: 'UpdateBooking',
    source: UPDATE_BOOKING_SAMPLES,
    request: {
      booking: {
        booking_id: '890',
        slot: {
          duration_sec: '1800',
          start_sec: '1606473000',
        },
      },
    },
  },
] as const;

export const responseExamples = [
  {
    method: 'CreateBooking',
    source: CREATE_BOOKING_SAMPLES,
    response: {
      booking: {
        booking_id: '890',
        payment_information: {
          prepayment_status: 'PREPAYMENT_NOT_PROVIDED',
        },
        slot: {
          confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
          duration_sec: '1800',
          merchant_id: '1234',
          resources: { party_size: 2 },
          service_id: '5678',
          start_sec: '1606467600',
        },
        status: 'CONFIRMED',
        user_information: {
          email: 'john.smith@gmail.com',
          family_name: 'Smith',
          given_name: 'John',
          telephone: '+12091111111',
          user_id: '1111111111111111111',
        },
      },
    },
  },
  {
    // As published: duration_sec/start_sec are bare numbers here and service_id is
    // "1000" (the CreateBooking sample used "5678"). Our server should emit strings.
    method: 'UpdateBooking',
    source: UPDATE_BOOKING_SAMPLES,
    response: {
      booking: {
        booking_id: '890',
        slot: {
          duration_sec: 1800,
          merchant_id: '1234',
          resources: { party_size: 2 },
          service_id: '1000',
          start_sec: 1606473000,
        },
        status: 'CONFIRMED',
        user_information: {
          email: 'john.smith@gmail.com',
          family_name: 'Smith',
          given_name: 'John',
          telephone: '+12091111111',
          user_id: '1111111111111111111',
        },
      },
    },
  },
] as const;
