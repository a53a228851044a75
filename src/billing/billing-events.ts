import type { EventHandlers } from '../payments/inbound.ts';

/** The processor's events about developer subscriptions and connected accounts. */
export const billingEventHandlers: EventHandlers = {};
